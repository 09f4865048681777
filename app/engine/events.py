"""The typed events the engine emits for a front end (the TUI, the headless printer, the protocol
front ends).

Data flows one way: the model stream and the executor feed the engine, the engine emits these, the
front end renders them. Tool calls arrive as frozen views (ToolCallUpdated), permission questions
as PermissionRequested; the user's answer goes back only through the question (its ResolveOnce).
The executor's own events (app/execution/events.py) never leave the engine: the Session turns
them into views (app/engine/tool_views.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.engine.views import PermissionRequested as PermissionRequested
from app.engine.views import ToolCallUpdated as ToolCallUpdated
from app.execution.events import ExecutorEvent


@dataclass(frozen=True)
class TurnStarted:
    """The user's prompt was accepted and a request is about to go out."""

    prompt: str


@dataclass(frozen=True)
class RequestStarted:
    """A model request went out (one user turn may make several)."""

    turn: int
    model: str


@dataclass(frozen=True)
class TextDelta:
    text: str
    index: int


@dataclass(frozen=True)
class ThinkingDelta:
    text: str
    index: int


@dataclass(frozen=True)
class RedactedThinking:
    """The model thought, encrypted by the API (a redacted_thinking block at `index`): nothing
    to show but the fact. The block goes back to the API untouched with the message."""

    index: int


@dataclass(frozen=True)
class AssistantMessage:
    """A whole assistant message, as it enters the conversation."""

    message: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultsMessage:
    """The user message carrying the tool_results of one model turn, in tool_use order."""

    message: Mapping[str, Any]


@dataclass(frozen=True)
class Retrying:
    """A request failed with a retryable error and will be tried again after `delay_s`."""

    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class AttemptAbandoned:
    """A model response broke before any of it was kept: the text, thinking and tool calls it
    streamed are not part of the conversation, and a front end that showed them takes them back
    (or marks them as a failed attempt). `retrying`: a Retrying event and a new attempt follow;
    else the turn ends with the error."""

    attempt: int
    reason: str
    retrying: bool


@dataclass(frozen=True)
class UsageUpdated:
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class StreamUsage:
    """The response being streamed, as its stream reports it (message_start, message_delta):
    the request's input tokens (cache reads and writes included) and the output so far. The
    session's totals still come as UsageUpdated once the response is over."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class Notice:
    """Something the user should see that is not part of the conversation (a hook's message)."""

    text: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass(frozen=True)
class ErrorOccurred:
    message: str


@dataclass(frozen=True)
class Interrupted:
    """The turn was interrupted by the user; `during_tools` tells which text the model got.
    `denied` is set when a deny ended it: the denied call as `Name(subject)` ("Bash(touch x)")."""

    during_tools: bool
    denied: str = ""


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over. `subtype` is the headless result subtype."""

    stop_reason: str | None
    result_text: str
    is_error: bool
    subtype: Literal["success", "error_max_turns", "error_during_execution", "interrupted"]
    num_turns: int
    permission_denials: tuple[Mapping[str, Any], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class QueuedPromptsDelivered:
    """Prompts typed while tools ran went to the model with this batch's results."""

    prompts: tuple[str, ...]


@dataclass(frozen=True)
class AppEvent:
    """Anything a tool emitted through `context.emit` (e.g. TodoWrite's TodoListChanged)."""

    payload: object


@dataclass(frozen=True)
class RawStreamEvent:
    """A raw SDK stream event (for `--include-partial-messages`)."""

    event: Mapping[str, Any]


@dataclass(frozen=True)
class ContextUpdated:
    """How full the model's context is: `used` tokens of `window` (the API's count of the last
    request plus an estimate of what was added since); compaction starts at `compact_at`."""

    used: int
    window: int
    compact_at: int | None = None

    @property
    def left_fraction(self) -> float:
        return max(0.0, 1.0 - self.used / self.window) if self.window else 1.0


@dataclass(frozen=True)
class CompactionStarted:
    trigger: Literal["manual", "auto"]


@dataclass(frozen=True)
class CompactionFinished:
    """The conversation was replaced by `summary` (and what survives: todos, files, memory).
    `trigger` is "" for a boundary replayed from the messages alone, which do not say it."""

    trigger: Literal["manual", "auto", ""]
    tokens_before: int
    tokens_after: int
    summary: str
    duration_s: float


@dataclass(frozen=True)
class CompactionFailed:
    """Compaction did not happen; the conversation is as it was and the session goes on."""

    trigger: Literal["manual", "auto"]
    message: str


@dataclass(frozen=True)
class SubagentMessage:
    """A message of a subagent's conversation (the Agent tool's child), for front ends that show
    it nested under the Agent call: stream-json prints it with `parent_tool_use_id`. Never part
    of the session's own conversation."""

    parent_tool_use_id: str
    agent_id: str
    agent_type: str
    message: Mapping[str, Any]


EngineEvent = (
    TurnStarted
    | RequestStarted
    | TextDelta
    | ThinkingDelta
    | RedactedThinking
    | AssistantMessage
    | ToolResultsMessage
    | ToolCallUpdated
    | PermissionRequested
    | Retrying
    | AttemptAbandoned
    | UsageUpdated
    | StreamUsage
    | Notice
    | ErrorOccurred
    | Interrupted
    | TurnEnded
    | AppEvent
    | RawStreamEvent
    | QueuedPromptsDelivered
    | ContextUpdated
    | CompactionStarted
    | CompactionFinished
    | CompactionFailed
    | SubagentMessage
)

# What the Session's emit takes: the events above and the executor's, which it turns into views.
InternalEvent = EngineEvent | ExecutorEvent
