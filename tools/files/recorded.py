"""Edit's and Write's result data rebuilt from a transcript's `toolUseResult`.

The transcript keeps a call's data only as the JSON hooks read (FileChange.hook_response), so a
resumed conversation has the model's text and that JSON. These turn the JSON back into the
FileChange the tool returned live, so its declared view (the "Added 2, removed 1 lines" summary
and the diff) is shown again instead of the model's text. Anything not in that shape gives None:
the view then falls back to the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tools.files.diff import FileChange, unified_diff
from tools.files.replace import ReplaceError, replace


def _text(recorded: Mapping[str, Any], key: str) -> str | None:
    value = recorded.get(key)
    return value if isinstance(value, str) else None


def edit_change(recorded: Any, message: str) -> FileChange | None:
    """Edit's `{filePath, oldString, newString, originalFile, replaceAll, ...}`: the edit is
    made again on the recorded original, so the diff is the one the call made."""
    if not isinstance(recorded, Mapping):
        return None
    path, old, new = (_text(recorded, k) for k in ("filePath", "oldString", "newString"))
    original = _text(recorded, "originalFile")
    if path is None or old is None or new is None or original is None:
        return None
    replace_all = recorded.get("replaceAll") is True
    try:
        after = replace(original, old, new, replace_all).text
    except ReplaceError:
        return None  # the record does not hold together: show the text
    diff, added, removed = unified_diff(original, after, path)
    kind: Literal["create", "update"] = "create" if original == "" and old == "" else "update"
    return FileChange(kind, path, diff, message, added, removed, original=original, content=after)


def write_change(recorded: Any, message: str) -> FileChange | None:
    """Write's `{type, filePath, content, originalFile, ...}` (originalFile null: created)."""
    if not isinstance(recorded, Mapping):
        return None
    kind, path, content = (_text(recorded, k) for k in ("type", "filePath", "content"))
    original = _text(recorded, "originalFile")
    if kind not in ("create", "update") or path is None or content is None:
        return None
    diff, added, removed = unified_diff(original or "", content, path)
    return FileChange(
        "create" if kind == "create" else "update",
        path,
        diff,
        message,
        added,
        removed,
        original=original,
        content=content,
    )
