"""Pure translations from the engine's views to what the widgets show."""

from __future__ import annotations

from typing import Any

from app.engine.api import ToolCallView
from widgets.plan_view import PlanItem
from widgets.tool_block import ToolStatus


def block_status(view: ToolCallView) -> ToolStatus:
    """The block's icon: a call awaiting approval shows as it was (the dialog says the rest)."""
    status = view.status
    if status == "awaiting_approval":
        return "running" if view.started_at is not None else "queued"
    if status == "failed":
        return "error"
    return status


def finished_fields(view: ToolCallView) -> dict[str, Any]:
    """The ToolCallState fields a finished call sets."""
    result = view.result
    diff = result is not None and result.kind == "diff"
    return {
        "status": block_status(view),
        "elapsed": view.elapsed,
        "result_text": (result.summary if diff else result.body) if result is not None else "",
        "diff": result.body if diff and result is not None else "",
        "output_tail": view.output_tail,
    }


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
