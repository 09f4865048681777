"""The front-end API: what the TUI, headless mode and the protocol front ends (stream-json, ACP)
import from the engine, and all they import from it.

- `SessionPort`: the typed door into a running session (app.engine.session.Session implements
  it; the composition root, app/compose.py, builds one).
- The events it sends to its sink (`EngineEvent`), made for rendering: tool calls as frozen
  `ToolCallView`s in `ToolCallUpdated`, permission questions as `PermissionQuestion`s in
  `PermissionRequested` (answer with `question.choose(...)`, `question.answer(decision)` or
  `session.answer(question, decision)`), usage, notices, the turn's end.
- The answers a question takes (`answers.allow_once()`, ...), and the session's status.

Nothing here is the executor's, the permission system's or the config's: those stay behind it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from app.agents.definitions import AgentDefinition as AgentDefinition
from app.agents.inline import parse_agent_specs as parse_agent_specs
from app.engine import answers as answers
from app.engine.context import Breakdown
from app.engine.controls import HookCallback as HookCallback
from app.engine.controls import HookCallbackRunner as HookCallbackRunner
from app.engine.controls import HookView as HookView
from app.engine.controls import HookWatcher as HookWatcher
from app.engine.events import AppEvent as AppEvent
from app.engine.events import AssistantMessage as AssistantMessage
from app.engine.events import AttemptAbandoned as AttemptAbandoned
from app.engine.events import CompactionFailed as CompactionFailed
from app.engine.events import CompactionFinished as CompactionFinished
from app.engine.events import CompactionStarted as CompactionStarted
from app.engine.events import ContextUpdated as ContextUpdated
from app.engine.events import EngineEvent as EngineEvent
from app.engine.events import ErrorOccurred as ErrorOccurred
from app.engine.events import Interrupted as Interrupted
from app.engine.events import Notice as Notice
from app.engine.events import QueuedPromptsDelivered as QueuedPromptsDelivered
from app.engine.events import RawStreamEvent as RawStreamEvent
from app.engine.events import RedactedThinking as RedactedThinking
from app.engine.events import RequestStarted as RequestStarted
from app.engine.events import Retrying as Retrying
from app.engine.events import StreamUsage as StreamUsage
from app.engine.events import SubagentMessage as SubagentMessage
from app.engine.events import TextDelta as TextDelta
from app.engine.events import ThinkingDelta as ThinkingDelta
from app.engine.events import ToolResultsMessage as ToolResultsMessage
from app.engine.events import TurnEnded as TurnEnded
from app.engine.events import TurnStarted as TurnStarted
from app.engine.events import UsageUpdated as UsageUpdated
from app.engine.options import EngineOptions as EngineOptions
from app.engine.options import SetupError as SetupError
from app.engine.permission_updates import PermissionUpdate as PermissionUpdate
from app.engine.permission_updates import UpdateError as UpdateError
from app.engine.permission_updates import parse_updates as parse_updates
from app.engine.permission_updates import rule_from_wire as rule_from_wire
from app.engine.status_line import StatusLineCommand as StatusLineCommand
from app.engine.status_line import status_payload as status_payload
from app.engine.tool_views import MAX_RESULT_CHARS as MAX_RESULT_CHARS
from app.engine.tool_views import MAX_TAIL_CHARS as MAX_TAIL_CHARS
from app.engine.tool_views import content_text as content_text
from app.engine.tool_views import message_text as message_text
from app.engine.views import CallKind as CallKind
from app.engine.views import CallLocation as CallLocation
from app.engine.views import ChoiceId as ChoiceId
from app.engine.views import FileDiff as FileDiff
from app.engine.views import PermissionChoice as PermissionChoice
from app.engine.views import PermissionQuestion as PermissionQuestion
from app.engine.views import PermissionRequested as PermissionRequested
from app.engine.views import ResultView as ResultView
from app.engine.views import ToolCallChange as ToolCallChange
from app.engine.views import ToolCallStatus as ToolCallStatus
from app.engine.views import ToolCallUpdated as ToolCallUpdated
from app.engine.views import ToolCallView as ToolCallView
from app.engine.views import ToolPreview as ToolPreview
from app.execution.events import CALL_CLOCK as CALL_CLOCK
from app.hooks.process import RawHookRun
from app.mcp.info import ServerInfo
from app.model.request import INTRO
from app.model.usage import ModelUsage as ModelUsage
from tools.decisions import PermissionDecision

if TYPE_CHECKING:
    from app.permissions import PermissionContext

EventSink = Callable[[EngineEvent], None]
# The API's names for what the engine's parts report: a hook's run, an MCP server, the context.
HookRun = RawHookRun
McpServerInfo = ServerInfo
ContextBreakdown = Breakdown
# The system prompt's introduction when the front end gives none (EngineOptions.intro None).
DEFAULT_INTRO = INTRO


@dataclass(frozen=True)
class McpServerStatus:
    name: str
    status: str


@dataclass(frozen=True)
class CommandInfo:
    """A custom slash command (`/name`), for completion and palettes. `refusal` set: not a
    command the user may run (a skill only the model may invoke, `user-invocable: false`);
    typed as `/name` it gets these words (Claude Code 2.1.332's), and no completion lists it."""

    name: str
    help: str
    refusal: str = ""


@dataclass(frozen=True)
class SessionStatus:
    """The session as it stands: what status bars, `init` lines and `/cost` show."""

    session_id: str
    model: str
    offline: bool
    permission_mode: str
    running: bool
    cwd: str
    project_dir: str
    transcript_path: str
    tools: tuple[str, ...]
    mcp_servers: tuple[McpServerStatus, ...]
    usage: Mapping[str, int]
    cost_usd: float
    # Transcript lines that could not be written (a resume would miss them) and the first error.
    transcript_lost: int = 0
    transcript_loss: str = ""
    # A policy's disable_bypass_mode: bypassPermissions cannot be set in this session.
    bypass_disabled: bool = False


class ControlsPort(Protocol):
    """What a program's front end (SDK control requests, ACP) asks beyond turns
    (app/engine/controls.py implements it)."""

    def mcp_servers(self) -> list[McpServerInfo]: ...

    def mcp_server(self, name: str) -> McpServerInfo | None: ...

    def reconnect_mcp_server(self, name: str) -> Awaitable[McpServerInfo]:
        """KeyError for a server the session does not have."""
        ...

    def disable_mcp_server(self, name: str) -> Awaitable[McpServerInfo]: ...

    def usage_by_model(self) -> dict[str, ModelUsage]: ...

    def context_window(self) -> int: ...

    @property
    def max_output_tokens(self) -> int: ...

    def context_usage(self) -> ContextBreakdown: ...

    def agents(self) -> tuple[AgentDefinition, ...]: ...

    def define_agents(self, definitions: Sequence[AgentDefinition]) -> bool:
        """False when the session has no tool that runs subagents."""
        ...

    @property
    def runs_hooks(self) -> bool: ...

    def register_hook_callbacks(
        self, callbacks: Sequence[HookCallback], run: HookCallbackRunner
    ) -> tuple[int, list[str]]:
        """How many were registered, and a problem per callback skipped."""
        ...

    def watch_hooks(self, watcher: HookWatcher) -> bool: ...


class SessionPort(Protocol):
    """A conversation with the model, as every front end drives it.

    Events go to the sink given at build time or with `set_sink`; the sink runs on the session's
    loop and must not block. A turn, a compaction, `clear` and `set_model` refuse to overlap a
    running turn (RuntimeError or False).
    """

    @property
    def session_id(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def permission_mode(self) -> str: ...

    @property
    def tool_names(self) -> Sequence[str]: ...

    @property
    def running(self) -> bool: ...

    @property
    def wants_idle_notification(self) -> bool: ...

    @property
    def controls(self) -> ControlsPort:
        """MCP servers one by one, usage per model, agent types, hook callbacks."""
        ...

    def set_sink(self, sink: EventSink) -> None: ...

    def status(self) -> SessionStatus: ...

    # -- prompting ------------------------------------------------------------------------------
    def run_turn(
        self, prompt: str, attachments: Sequence[Mapping[str, Any]] = ()
    ) -> Awaitable[TurnEnded]:
        """Send a prompt (custom commands and @files expanded) and run the turn to its end.
        `attachments`: Messages API content blocks (images, documents, text) a protocol front
        end's client sent with the prompt; they follow its text."""
        ...

    def send_while_running(self, prompt: str) -> bool:
        """A prompt typed during a turn goes with the running batch's results (False: idle)."""
        ...

    def take_queued_prompts(self) -> list[str]: ...

    def interrupt(self) -> bool:
        """Ctrl+C: stop the turn; an open question is answered as aborted. False when idle."""
        ...

    def answer(self, question: PermissionQuestion, decision: PermissionDecision) -> bool: ...

    # -- settings of the session ----------------------------------------------------------------
    def set_permission_mode(self, mode: str) -> None: ...

    def set_model(self, model: str) -> None: ...

    def describe_permissions(self) -> str: ...

    def replace_rules(self, loaded: PermissionContext) -> None:
        """The settings files' rules, reloaded: they replace the files' part of the rules in
        force (the mode and the session-only rules stay)."""
        ...

    def custom_commands(self) -> tuple[CommandInfo, ...]: ...

    def status_line_command(self) -> str | None: ...

    # -- context ----------------------------------------------------------------------------------
    def compact(self, instructions: str = "") -> Awaitable[TurnEnded]: ...

    def clear(self) -> bool: ...

    def context_breakdown(self) -> list[str]: ...

    def report_context(self) -> None: ...

    def history(self) -> tuple[EngineEvent, ...]:
        """A resumed conversation as events (for a front end to draw as it was left). May read
        files (resumed edits' diffs): call it off the UI loop (asyncio.to_thread)."""
        ...

    # -- MCP, hooks, lifetime -------------------------------------------------------------------
    def start_mcp(self, timeout: float | None = None) -> Awaitable[None]: ...

    def mcp_status(self) -> list[dict[str, str]]: ...

    def reconnect_mcp(self, name: str) -> Awaitable[str]: ...

    def notify_idle(self, message: str) -> Awaitable[None]: ...

    def close(self, reason: str = "exit") -> Awaitable[None]: ...

    # -- background agents (Agent with run_in_background) ------------------------------------------
    @property
    def pending_notifications(self) -> bool:
        """A background agent ended and its notification waits for the model."""
        ...

    def background_agents_running(self) -> bool: ...

    def wait_for_notification(self, timeout: float) -> Awaitable[None]:
        """Until a notification is pending or `timeout` seconds pass."""
        ...

    def run_notification_turn(self) -> Awaitable[TurnEnded]:
        """A turn whose prompt is the pending notifications (what `-p` does once the user's
        turn ended with background agents running; the TUI sends them with the next prompt)."""
        ...
