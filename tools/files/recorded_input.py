"""A recorded edit's diff, rebuilt from the call's input when a transcript is read back: for a
denied call (which has no recorded result data) and for a made one whose data was not kept
(tools/files/recorded.py rebuilds it exactly from `toolUseResult` when it was).

The transcript keeps each call's input, not the diff the screen showed. Where the file on disk
still shows the edit (its new text once, for an edit that was made; its old text once, for one
the user denied), the diff has the file's own line numbers and context, as the live call showed;
otherwise it is the diff of the two strings alone, with no line numbers (they would be made up).
"""

from __future__ import annotations

import os

from tools.files.diff import unified_diff
from tools.files.paths import kernel_normpath
from tools.files.preview import current_file

# Hunk line numbers that cannot be known: the hunks are still told apart.
UNKNOWN_HUNK = "@@ … @@\n"


def recorded_path(file_path: str, cwd: str) -> str:
    """The call's file as its tool resolved it (`~` expanded, relative to the session's folder)."""
    path = os.path.expanduser(file_path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return kernel_normpath(path)


def recorded_edit_diff(path: str, old: str, new: str, applied: bool) -> str:
    """The diff of replacing `old` by `new` in the file at `path`: located in the file when it
    holds exactly one copy of the side the file now has, else from the strings alone."""
    current = current_file(path)
    if current is not None:
        text = current.text
        if current.line_ending == "\r\n":
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        find, put = (new, old) if applied else (old, new)
        if find and text.count(find) == 1:
            at = text.index(find)
            other = text[:at] + put + text[at + len(find) :]
            before, after = (other, text) if applied else (text, other)
            return unified_diff(before, after, path)[0]
    diff = unified_diff(old, new, path)[0]
    if old == "":
        return diff  # a new file: its line numbers are known (from 1)
    return "".join(
        UNKNOWN_HUNK if line.startswith("@@") else line for line in diff.splitlines(keepends=True)
    )


def diff_counts(diff: str) -> tuple[int, int]:
    """The lines a unified diff adds and removes."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++ ", "--- ")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed
