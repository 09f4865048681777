"""What Write and Edit report: a unified diff for the UI, a numbered snippet for the model."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from tools.base import FileDiff
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
    # For hooks and the transcript (Claude Code's shapes): the text before (None: a new file),
    # the text after, and an Edit's strings (`edit` False: a Write).
    original: str | None = None
    content: str | None = None
    edit: bool = False
    old_string: str = ""
    new_string: str = ""
    replace_all: bool = False

    def file_diff(self) -> FileDiff | None:
        """The change as whole texts, for a front end's diff view (None: the text after is not
        known)."""
        if self.content is None:
            return None
        return FileDiff(self.file_path, self.original, self.content)

    def hook_response(self) -> dict[str, Any]:
        """Claude Code's PostToolUse `tool_response` for Write (`{type, filePath, content,
        structuredPatch, originalFile, userModified}`) and Edit (`{filePath, oldString,
        newString, originalFile, structuredPatch, userModified, replaceAll}`), measured."""
        after = self.content if self.content is not None else ""
        patch = structured_patch(self.original, after)
        if self.edit:
            return {
                "filePath": self.file_path,
                "oldString": self.old_string,
                "newString": self.new_string,
                "originalFile": self.original if self.original is not None else "",
                "structuredPatch": patch,
                "userModified": False,
                "replaceAll": self.replace_all,
            }
        return {
            "type": self.kind,
            "filePath": self.file_path,
            "content": after,
            "structuredPatch": patch,
            "originalFile": self.original,
            "userModified": False,
        }


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it starts no new one
    return lines


def structured_patch(before: str | None, after: str, context: int = 4) -> list[dict[str, Any]]:
    """The hunks of `before` -> `after` as the `diff` package's structuredPatch gives them (what
    Claude Code's hooks read): `{oldStart, oldLines, newStart, newLines, lines}`; a new file has
    none."""
    if before is None:
        return []
    a, b = _lines(before), _lines(after)
    hunks: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + x for x in a[i1:i2]]
                continue
            lines += ["-" + x for x in a[i1:i2]]
            lines += ["+" + x for x in b[j1:j2]]
        first, last = group[0], group[-1]
        old_lines, new_lines = last[2] - first[1], last[4] - first[3]
        hunks.append(
            {
                "oldStart": first[1] + 1 if old_lines else first[1],
                "oldLines": old_lines,
                "newStart": first[3] + 1 if new_lines else first[3],
                "newLines": new_lines,
                "lines": lines,
            }
        )
    return hunks


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
