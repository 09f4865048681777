"""Pure translations from engine and tool data to what the widgets show."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from app.execution.outcome import CallOutcome
from widgets.plan_view import PlanItem
from widgets.tool_block import ToolStatus

MAX_RESULT_CHARS = 20_000
MAX_TAIL_CHARS = 4_000


def content_text(content: Any) -> str:
    """The text of a tool_result's content (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, Mapping):
                if block.get("type") == "text":
                    parts.append(str(block.get("text", "")))
                else:
                    parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return "" if content is None else str(content)


def outcome_status(outcome: CallOutcome) -> ToolStatus:
    if outcome.synthetic == "user_interrupt":
        return "interrupted"
    if outcome.permission_denial is not None:
        return "denied"
    return "error" if outcome.is_error else "done"


def outcome_view(outcome: CallOutcome) -> dict[str, Any]:
    """The ToolCallState fields a finished call sets."""
    data = outcome.data
    diff = getattr(data, "diff", None)
    tail = getattr(data, "output_tail", None)
    text = content_text(outcome.result_block.get("content"))
    return {
        "status": outcome_status(outcome),
        "result_text": text[:MAX_RESULT_CHARS],
        "diff": diff if isinstance(diff, str) and not outcome.is_error else "",
        "output_tail": tail[-MAX_TAIL_CHARS:] if isinstance(tail, str) else "",
    }


def message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("text", ""))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text"
    )


def permission_preview(tool_name: str, tool_input: Mapping[str, Any]) -> tuple[str, str]:
    """("diff", text) for edits, ("command", text) for commands, ("input", text) otherwise."""
    if tool_name == "Bash" and isinstance(tool_input.get("command"), str):
        return "command", str(tool_input["command"])
    path = str(tool_input.get("file_path", ""))
    if tool_name == "Edit" and isinstance(tool_input.get("old_string"), str):
        old_string = str(tool_input["old_string"])
        new_string = str(tool_input.get("new_string", ""))
        current = _current_text(path)
        if current is not None and old_string and old_string in current:
            count = -1 if tool_input.get("replace_all") else 1
            return "diff", _diff(current, current.replace(old_string, new_string, count), path)
        return "diff", _diff(old_string, new_string, path)
    if tool_name == "Write" and isinstance(tool_input.get("content"), str):
        return "diff", _diff(_current_text(path) or "", str(tool_input["content"]), path)
    lines = [f"{key}: {_short(value)}" for key, value in tool_input.items()]
    return "input", "\n".join(lines)


# The dialog shows the change against the file as it is: a few hundred KB at most, read once.
_PREVIEW_LIMIT = 512 * 1024


def _current_text(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_PREVIEW_LIMIT + 1)
    except OSError:
        return None
    if len(data) > _PREVIEW_LIMIT or b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _diff(old: str, new: str, path: str) -> str:
    label = path.lstrip("/")
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        f"a/{label}" if old else "/dev/null",
        f"b/{label}",
        lineterm="",
    )
    return "\n".join(lines)


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def plan_items(payload: object) -> tuple[PlanItem, ...] | None:
    """TodoWrite's TodoListChanged (duck-typed, so the plan works before that tool lands)."""
    todos = getattr(payload, "todos", None)
    if not isinstance(todos, tuple | list):
        return None
    items = []
    for todo in todos:
        content = getattr(todo, "content", None)
        status = getattr(todo, "status", None)
        if not isinstance(content, str) or not isinstance(status, str):
            return None
        items.append(PlanItem(content, status, str(getattr(todo, "active_form", "") or "")))
    return tuple(items)
