"""What the screen shows of texts written for the model: nothing of what only the model reads.

A tool result may carry `<system-reminder>` blocks, TodoWrite's instruction to keep using the
list, and a diff's `--- a/...` / `+++ b/...` header lines (the tool block already names the file).
Front ends get results and previews through this, so none of them shows those texts.
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.engine.views import ResultView
from tools.base import ToolPreview
from tools.todo_write import RESULT_TEXT as TODO_RESULT_TEXT

_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
# Whole results that are instructions to the model, and what a person reads instead.
_FOR_THE_MODEL = {TODO_RESULT_TEXT: "Todo list updated"}


def screen_text(text: str) -> str:
    if "<system-reminder>" in text:
        text = _REMINDER.sub("\n", text).strip("\n")
    return _FOR_THE_MODEL.get(text.strip(), text)


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def screen_diff(diff: str) -> str:
    """A unified diff without its file header lines. Hunk lengths are followed, so a removed
    line that itself starts with "-- " is never taken for a header."""
    out: list[str] = []
    old = new = 0  # lines left in the current hunk
    for line in diff.splitlines(keepends=True):
        if old > 0 or new > 0:
            out.append(line)
            if line.startswith("-"):
                old -= 1
            elif line.startswith("+"):
                new -= 1
            elif not line.startswith("\\"):  # "\ No newline at end of file" counts for none
                old, new = old - 1, new - 1
            continue
        hunk = _HUNK.match(line)
        if hunk is not None:
            old = int(hunk.group(1) or 1)
            new = int(hunk.group(2) or 1)
        elif line.startswith(("--- ", "+++ ")):
            continue
        out.append(line)
    return "".join(out)


def plain_result(view: ResultView) -> ResultView:
    body = screen_diff(view.body) if view.kind == "diff" else screen_text(view.body)
    return replace(view, summary=screen_text(view.summary), body=body)


def plain_preview(preview: ToolPreview | None) -> ToolPreview | None:
    if preview is None or preview.kind != "diff":
        return preview
    return replace(preview, text=screen_diff(preview.text))
