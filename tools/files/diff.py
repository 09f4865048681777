"""What Write and Edit report: a unified diff for the UI, a numbered snippet for the model."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from tools.files.lines import MAX_LINE_CHARS, TRUNCATION_MARK, format_numbered

SNIPPET_CONTEXT = 4
MAX_SNIPPET_LINES = 60


@dataclass(frozen=True)
class FileChange:
    """The result data of Write and Edit. `diff` is for the UI; the model reads `message`."""

    kind: Literal["create", "update"]
    file_path: str
    diff: str
    message: str
    added: int
    removed: int
    replacements: int = 1


def unified_diff(old: str, new: str, path: str, context: int = 3) -> tuple[str, int, int]:
    """The diff text and the counts of added and removed lines."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path.lstrip('/')}" if old else "/dev/null",
            tofile=f"b/{path.lstrip('/')}",
            n=context,
        )
    )
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    text = "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in lines)
    return text, added, removed


def snippet(text: str, first_line: int, last_line: int) -> str:
    """Lines `first_line`..`last_line` (1-based) of `text` with context, numbered like Read."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start = max(1, first_line - SNIPPET_CONTEXT)
    end = min(len(lines), last_line + SNIPPET_CONTEXT, start + MAX_SNIPPET_LINES - 1)
    chosen = [
        x if len(x) <= MAX_LINE_CHARS else x[:MAX_LINE_CHARS] + TRUNCATION_MARK
        for x in lines[start - 1 : end]
    ]
    return format_numbered(chosen, start)


def changed_line_range(old: str, new: str) -> tuple[int, int]:
    """The 1-based lines of `new` that differ from `old` (a common prefix and suffix removed)."""
    a, b = old.split("\n"), new.split("\n")
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(a), len(b)) - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]
    ):
        suffix += 1
    first = prefix + 1
    last = max(first, len(b) - suffix)
    return first, last
