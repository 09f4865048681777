"""Pure translations from the engine's views to what the widgets show."""

from __future__ import annotations

from typing import Any

from app.engine.api import ResultView, ToolCallView
from tools.todo_write import TodoListChanged
from widgets.plan_view import PlanItem
from widgets.tool_block import ToolCallState, ToolStatus


def block_status(view: ToolCallView) -> ToolStatus:
    """The block's icon and state word: a call waiting for the user is "awaiting", not running."""
    status = view.status
    if status == "awaiting_approval":
        return "awaiting"
    if status == "failed":
        return "error"
    if status == "checking":
        return "running"  # being checked looks like running; only its clock waits for "running"
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
        label_stat=label.stat if label is not None else "",
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
    image = result is not None and result.kind == "image"
    fields: dict[str, Any] = {
        "status": block_status(view),
        "elapsed": view.elapsed,
        "result_text": (result.summary if diff or image else result.body) if result else "",
        "result_summary": declared_summary(result),
        "diff": result.body if diff and result is not None else "",
        "output_tail": view.output_tail,
        "outcome": "",
        "full_path": result.full_path if result is not None else None,
    }
    if view.status in ("denied", "interrupted") and result is not None:
        fields["outcome"] = result.summary
        fields["result_text"] = ""
    preview = view.preview
    if view.status == "denied" and preview is not None and preview.kind == "diff":
        # The change the user turned down stays on screen (the engine's view keeps it), as
        # Claude Code keeps a rejected edit's diff.
        fields["diff"] = preview.text
    return fields


def declared_summary(result: ResultView | None) -> str:
    """The tool's summary line of a text result, when the body does not already hold it (a
    tool that declares none has its result's first line as its summary)."""
    if result is None or result.kind != "text" or not result.summary:
        return ""
    summary = result.summary.strip()
    return "" if "\n" in summary or summary in result.body else summary


def plan_items(payload: object) -> tuple[PlanItem, ...] | None:
    """TodoWrite's TodoListChanged (the tool's public event) as the plan view's items."""
    if not isinstance(payload, TodoListChanged):
        return None
    return tuple(PlanItem(t.content, t.status, t.active_form or "") for t in payload.todos)
