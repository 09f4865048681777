"""What one tool call produces, whatever happened to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.hooks.results import HookMessage
from tools.base import ToolContext
from tools.decisions import PermissionDecision

SyntheticReason = Literal["user_interrupt", "user_denied", "sibling_error", "streaming_fallback"]


def ends_turn(decision: PermissionDecision | None) -> bool:
    return decision is not None and decision.behavior == "deny" and decision.end_turn


@dataclass
class CallOutcome:
    """The tool_result for one tool_use, plus what the rest of the system needs to know about it.

    `extra_content` are text blocks that go after all the tool_results of the user message (hook
    context and feedback): the API wants tool_results first.
    """

    tool_use_id: str
    tool_name: str
    result_block: dict[str, Any]
    is_error: bool
    data: Any = None
    context_modifier: Callable[[ToolContext], ToolContext] | None = None
    extra_content: tuple[dict[str, Any], ...] = ()
    permission_denial: dict[str, Any] | None = None
    decision: PermissionDecision | None = None
    prevent_continuation: str | None = None
    notices: tuple[HookMessage, ...] = ()
    persisted_path: str | None = None
    synthetic: SyntheticReason | None = None
    # True when the tool's `call` actually ran (for tests and the UI).
    ran: bool = False
    input: Mapping[str, Any] = field(default_factory=dict)


def error_outcome(
    tool_use_id: str,
    tool_name: str,
    content: str,
    *,
    synthetic: SyntheticReason | None = None,
    input: Mapping[str, Any] | None = None,
) -> CallOutcome:
    return CallOutcome(
        tool_use_id=tool_use_id,
        tool_name=tool_name,
        result_block={
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": content,
            "is_error": True,
        },
        is_error=True,
        synthetic=synthetic,
        input=dict(input or {}),
    )
