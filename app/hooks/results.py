"""The translated results of hooks: discriminated unions the pipeline switches on.

The translation layer only translates the runner's raw results into these; the decision itself is
made in pipeline stage 7 (PreToolUse) and stage 10 (PostToolUse).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

# --- PreToolUse ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HookMessage:
    """A notice for the user (systemMessage, a non-blocking error, a hook's stderr)."""

    text: str
    level: Literal["info", "warning", "error"] = "info"
    hook: str = ""
    kind: Literal["message"] = "message"


@dataclass(frozen=True)
class HookPermissionResult:
    """A hook's permission opinion, aggregated over all matching hooks (deny>defer>ask>allow)."""

    behavior: Literal["allow", "deny", "ask", "defer"]
    reason: str = ""
    hook: str = ""
    kind: Literal["permission_result"] = "permission_result"


@dataclass(frozen=True)
class HookUpdatedInput:
    input: Mapping[str, Any]
    hook: str = ""
    kind: Literal["updated_input"] = "updated_input"


@dataclass(frozen=True)
class HookPreventContinuation:
    """`continue: false`: the turn ends after this call."""

    reason: str = ""
    hook: str = ""
    kind: Literal["prevent_continuation"] = "prevent_continuation"


@dataclass(frozen=True)
class HookStopReason:
    reason: str
    hook: str = ""
    kind: Literal["stop_reason"] = "stop_reason"


@dataclass(frozen=True)
class HookAdditionalContext:
    """Text added to what the model sees after this call."""

    text: str
    hook: str = ""
    kind: Literal["additional_context"] = "additional_context"


@dataclass(frozen=True)
class HookStop:
    """Stop processing: the call does not run (a blocking error from the hook itself)."""

    reason: str = ""
    hook: str = ""
    kind: Literal["stop"] = "stop"


PreToolHookItem = (
    HookMessage
    | HookPermissionResult
    | HookUpdatedInput
    | HookPreventContinuation
    | HookStopReason
    | HookAdditionalContext
    | HookStop
)

# --- PostToolUse / PostToolUseFailure -----------------------------------------------------------


@dataclass(frozen=True)
class HookCancelled:
    """The hook run was aborted (the turn was interrupted)."""

    hook: str = ""
    kind: Literal["cancelled"] = "cancelled"


@dataclass(frozen=True)
class HookBlockingError:
    """Exit 2 or `decision: block` after the fact: shown to the model beside the result."""

    text: str
    hook: str = ""
    kind: Literal["blocking_error"] = "blocking_error"


@dataclass(frozen=True)
class HookStoppedContinuation:
    reason: str = ""
    hook: str = ""
    kind: Literal["stopped_continuation"] = "stopped_continuation"


@dataclass(frozen=True)
class HookUpdatedMcpOutput:
    """An MCP tool's output rewritten by a hook (only honoured for MCP tools)."""

    output: Any
    hook: str = ""
    kind: Literal["updated_mcp_tool_output"] = "updated_mcp_tool_output"


PostToolHookItem = (
    HookMessage
    | HookCancelled
    | HookBlockingError
    | HookStoppedContinuation
    | HookAdditionalContext
    | HookUpdatedMcpOutput
)

# --- Events outside the tool pipeline (the engine consumes these) --------------------------------


@dataclass(frozen=True)
class PromptHookResult:
    """UserPromptSubmit: a block keeps the prompt from the model; `reason` is for the user."""

    blocked: bool = False
    reason: str = ""
    additional_context: tuple[str, ...] = ()
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False
    # Claude Code's text for the block, the turn's result (app/hooks/translate.py).
    result_text: str = ""


@dataclass(frozen=True)
class StopHookResult:
    """Stop: `should_continue` makes the model go on with `reason` as its instruction. The engine
    calls again with `stop_hook_active=True` and must not loop forever (it guards, hooks may too).
    `prevent_continuation` (a hook's `continue: false`) ends the turn whatever others said."""

    should_continue: bool = False
    reason: str = ""
    prevent_continuation: str | None = None
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False


@dataclass(frozen=True)
class SessionStartHookResult:
    additional_context: tuple[str, ...] = ()
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False


@dataclass(frozen=True)
class SessionEndHookResult:
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False


@dataclass(frozen=True)
class PreCompactHookResult:
    """PreCompact: `blocked` (exit 2, or `decision: "block"`) says why the compaction must not
    happen; the conversation then stays as it is."""

    blocked: str | None = None
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False


@dataclass(frozen=True)
class PermissionRequestHookResult:
    """PermissionRequest: a hook answered the permission dialog (`behavior` allow or deny, exit 2
    denies), or nobody did (`behavior` None: the dialog shows). Any deny wins over an allow."""

    behavior: str | None = None
    message: str = ""
    updated_input: Mapping[str, Any] | None = None
    hook: str = ""
    messages: tuple[HookMessage, ...] = ()
    cancelled: bool = False
