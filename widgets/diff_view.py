"""A unified diff, coloured line by line; also usable as a plain Rich renderable."""

from __future__ import annotations

import re

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


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def numbered_lines(diff: str) -> list[tuple[str, str, str]]:
    """The diff as a person reads it, as Claude Code shows it: each line with its line number
    (the old file's for a removed line, the new file's otherwise), a sign and its text, and no
    `@@ -1,3 +1,4 @@` hunk header (a patch tool's notation); a gap between two hunks is one `…`
    row. Rows are (number, sign, text); a line before any hunk header keeps no number."""
    rows: list[tuple[str, str, str]] = []
    old = new = 0
    seen_hunk = numbered = False
    for line in shown_lines(diff):
        match = _HUNK.match(line)
        if match or line.startswith("@@"):
            if seen_hunk:
                rows.append(("", "…", ""))
            # "@@ … @@": a change whose place in the file is not known (a resumed denied edit):
            # its lines keep their signs and get no made-up numbers.
            numbered = match is not None
            old, new = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
            seen_hunk = True
            continue
        if not seen_hunk:
            rows.append(("", "", line))
            continue
        if line.startswith("\\"):  # "\ No newline at end of file": patch notation too
            continue
        sign, body = (line[:1], line[1:]) if line[:1] in ("+", "-", " ") else (" ", line)
        shown = old if sign == "-" else new
        rows.append((str(shown) if numbered else "", sign, body))
        if sign != "+":
            old += 1
        if sign != "-":
            new += 1
    return rows


def render_diff(diff: str, max_lines: int = MAX_DIFF_LINES) -> Text:
    """Colour a diff, each line numbered. Long diffs are cut with a note, so one huge edit cannot
    stall a frame."""
    text = Text(no_wrap=False, overflow="fold")
    rows = numbered_lines(diff)
    width = max((len(n) for n, _, _ in rows), default=0)
    for number, sign, body in rows[:max_lines]:
        if sign == "…":
            text.append(" " * width + " …", style="dim")
            text.append("\n")
            continue
        style = {"+": "lathe.diff.add", "-": "lathe.diff.remove"}.get(sign, "dim")
        if width:
            text.append(number.rjust(width) + " ", style="dim")
        text.append(f"{sign}{body}", style=style)
        text.append("\n")
    if len(rows) > max_lines:
        text.append(f"… {more_lines(len(rows) - max_lines)}\n", style="dim italic")
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
