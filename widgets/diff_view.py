"""A unified diff, coloured line by line; also usable as a plain Rich renderable."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from widgets.counts import more_lines

MAX_DIFF_LINES = 400


def diff_stat(diff: str) -> str:
    """ "+3 -1": the lines a unified diff adds and removes ("" for no diff)."""
    if not diff:
        return ""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++ ", "--- ")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return f"+{added} -{removed}"


def shown_lines(diff: str) -> list[str]:
    """The diff's lines as a person reads them: the `--- a/…`/`+++ b/…` file headers are for
    patch tools (the block and the dialog name the file already)."""
    lines = diff.splitlines()
    while lines and lines[0].startswith(("--- ", "+++ ", "diff ", "index ")):
        lines.pop(0)
    return lines


def render_diff(diff: str, max_lines: int = MAX_DIFF_LINES) -> Text:
    """Colour a unified diff. Long diffs are cut with a note, so one huge edit cannot stall a frame."""
    text = Text(no_wrap=False, overflow="fold")
    lines = shown_lines(diff)
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
        text.append(f"… {more_lines(len(lines) - max_lines)}\n", style="dim italic")
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
