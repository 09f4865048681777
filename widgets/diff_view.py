"""A unified diff, coloured line by line; also usable as a plain Rich renderable."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

MAX_DIFF_LINES = 400


def render_diff(diff: str, max_lines: int = MAX_DIFF_LINES) -> Text:
    """Colour a unified diff. Long diffs are cut with a note, so one huge edit cannot stall a frame."""
    text = Text(no_wrap=False, overflow="fold")
    lines = diff.splitlines()
    for line in lines[:max_lines]:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "lathe.diff.hunk"
        elif line.startswith("+"):
            style = "lathe.diff.add"
        elif line.startswith("-"):
            style = "lathe.diff.remove"
        else:
            style = "dim"
        text.append(line, style=style)
        text.append("\n")
    if len(lines) > max_lines:
        text.append(f"… {len(lines) - max_lines} more diff lines\n", style="dim italic")
    text.rstrip()
    return text


class DiffView(Static):
    DEFAULT_CSS = """
    DiffView {
        height: auto;
        padding: 0 1;
        background: $surface;
    }
    """

    def __init__(self, diff: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(render_diff(diff), id=id, classes=classes)
        self.diff = diff
