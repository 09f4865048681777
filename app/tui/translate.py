"""Pure translations from the engine's views to what the widgets show."""

from __future__ import annotations

from typing import Any

from app.engine.api import ToolCallView
from widgets.plan_view import PlanItem
from widgets.tool_block import ToolCallState, ToolStatus


def block_status(view: ToolCallView) -> ToolStatus:
    """The block's icon and state word: a call waiting for the user is "awaiting", not running."""
    status = view.status
    if status == "awaiting_approval":
        return "awaiting"
    if status == "failed":
        return "error"
    return status


def queued_state(view: ToolCallView) -> ToolCallState:
    """A new block's state: the tool's own label (a command with its description, a path, a
    pattern) and the end of a long output it shows."""
    label = view.label
    return ToolCallState(
        view.tool_use_id,
        view.name,
        view.title,
        label=label.text if label is not None else "",
        language=label.language if label is not None else None,
        note=label.note if label is not None else "",
        focus=view.output_focus,
    )


def waiting_fields(view: ToolCallView) -> dict[str, Any]:
    """The fields a call awaiting approval, or answered, sets (a pending edit's diff stat)."""
    preview = view.preview
    diff = preview.text if preview is not None and preview.kind == "diff" else ""
    return {"status": block_status(view), "pending_diff": diff}


def finished_fields(view: ToolCallView) -> dict[str, Any]:
    """The ToolCallState fields a finished call sets. A call that did not end normally (denied,
    not run, interrupted) says so in plain words; an interrupted one keeps the output it printed."""
    result = view.result
    diff = result is not None and result.kind == "diff"
    fields: dict[str, Any] = {
        "status": block_status(view),
        "elapsed": view.elapsed,
        "result_text": (result.summary if diff else result.body) if result is not None else "",
        "diff": result.body if diff and result is not None else "",
        "output_tail": view.output_tail,
        "outcome": "",
        "full_path": result.full_path if result is not None else None,
    }
    if view.status in ("denied", "interrupted") and result is not None:
        fields["outcome"] = result.summary
        fields["result_text"] = ""
    return fields


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
