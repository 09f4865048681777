"""A conversation with the model: its messages, its tools, its context, and its turns.

The Session owns the state; `app/engine/turn.py` runs one user turn on it. Front ends (the TUI,
the headless printer) pass a sink that receives every EngineEvent and call `run_turn` and
`interrupt`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app import debuglog
from app.engine.context import ContextConfig, ContextState
from app.engine.controls import SessionControls
from app.engine.events import EngineEvent, InternalEvent, Notice, PermissionRequested, TurnEnded
from app.engine.session_parts import Json as Json  # re-exported: their home was this module
from app.engine.session_parts import SessionParts as SessionParts
from app.engine.session_parts import live_rules as live_rules
from app.engine.tool_views import ToolCallTracker
from app.execution.events import (
    ToolFinished,
    ToolProgressed,
    ToolQueued,
    ToolRunning,
    ToolStarted,
)
from app.execution.pipeline import PipelineDeps
from app.model.usage import UsageTracker
from tools.abort import AbortController
from tools.base import Tool
from tools.todo_write import todos_from_history

if TYPE_CHECKING:
    from app.commands.ports import CommandSession
    from app.engine.api import CommandInfo, SessionStatus
    from app.engine.views import PermissionQuestion
    from app.execution.streaming_executor import StreamingToolExecutor
    from app.hooks.runner import CommandHookRunner
    from app.permissions import PermissionContext, RuleDecider
    from tools.decisions import PermissionDecision


class Session:
    """The engine's one door: it implements app.engine.api.SessionPort for every front end."""

    def __init__(
        self, parts: SessionParts, sink: Callable[[EngineEvent], None] | None = None
    ) -> None:
        self.parts = parts
        self.backend = parts.backend
        self.pool = parts.pool
        from app.engine.side_query import make_side_query
        from app.engine.web_search import make_web_search

        self.context = replace(
            parts.context,
            tools=parts.pool.tools,
            emit=self._emit_app_event,
            side_query=make_side_query(self),
            web_search=make_web_search(self),
        )
        if parts.agents is not None and any(t.runs_subagents for t in parts.pool.tools):
            # The Agent tool's runner; a subagent's own session gets none (no nesting).
            from app.engine.subagents import SessionSubagents

            self.context = replace(self.context, subagents=SessionSubagents(self, parts.agents))
        self.messages: list[dict[str, Any]] = list(parts.messages)
        resumed_todos = todos_from_history(self.messages)
        if resumed_todos:
            self.context = replace(
                self.context, state={**self.context.state, "todos": resumed_todos}
            )
        self.session_id = parts.session_id
        self.usage = UsageTracker()
        self.deps = PipelineDeps(
            tools=parts.pool.tools,
            fallback_tools=parts.fallback_tools,
            hooks=parts.hooks,
            decider=parts.decider,
            prompter=parts.prompter,
        )
        self._sink = sink or (lambda event: None)
        self._turn_abort: AbortController | None = None
        self._turn_task: asyncio.Task[Any] | None = None
        self.last_result: TurnEnded | None = None
        self._pending_context: list[str] = []
        # Prompts sent while a turn runs, and the executor of the batch running now.
        self._queued_prompts: list[str] = []
        # Results of background agents waiting for the model (app/engine/background_agents.py).
        self._notifications: list[str] = []
        self._notified = asyncio.Event()
        self.executor: StreamingToolExecutor | None = None
        self._started_hooks = False
        # Tool calls as the views front ends render (built from the executor's events).
        self._calls = ToolCallTracker(parts.parent_tool_use_id, find=lambda n: self.deps.find(n))
        # Context accounting and compaction (app/engine/long_session.py does the work).
        self.context_config = ContextConfig.from_settings(
            parts.settings, extended_named=parts.backend.extended
        )
        self.context_state = ContextState()
        self.controls = SessionControls(self)  # what program front ends ask beyond turns
        # A background command's end, in its tool's words, for the user (tui-r4 F6).
        self.context.background.on_finished = lambda words: self.emit(Notice(words))

    # -- what front ends read ------------------------------------------------------------------

    @property
    def model(self) -> str:
        return self.backend.model

    @property
    def offline(self) -> bool:
        return self.backend.offline

    @property
    def tool_pool_tools(self) -> tuple[Tool[Any], ...]:
        return self.pool.tools

    @property
    def tool_names(self) -> list[str]:
        return self.pool.names

    # -- what a command's or skill's turn asks (app/commands/ports.py CommandSession) ------------

    @property
    def scope_rules(self) -> RuleDecider | None:
        return self.parts.rules

    def hook_hosts(self) -> list[CommandHookRunner]:
        from app.hooks.runner import CommandHookRunner

        found: dict[int, CommandHookRunner] = {}
        for runner in (self.parts.hooks, self.parts.session_hooks):
            if isinstance(runner, CommandHookRunner):  # the one runner that takes handlers
                found[id(runner)] = runner
        return list(found.values())

    @property
    def permission_mode(self) -> str:
        rules = self.parts.rules
        return rules.context.mode if rules is not None else "default"

    def set_permission_mode(self, mode: str) -> None:
        from app.permissions.modes import parse_mode

        rules = self.parts.rules
        if rules is not None:
            # with_mode: a policy that disables bypassPermissions keeps it off (the mode stays).
            rules.set_context(rules.context.with_mode(parse_mode(mode)))

    @property
    def running(self) -> bool:
        return self._turn_abort is not None

    def set_model(self, model: str) -> None:
        """`/model NAME`: later requests use NAME (the offline models answer whatever is asked);
        an alias (`opus`) is its model id, as at start."""
        from dataclasses import replace

        from app.config.model_aliases import asks_extended_window, resolve_alias
        from app.engine.context import beta_headers

        self.backend.model = resolve_alias(model) if model.strip() else model
        if asks_extended_window(model) and not self.context_config.extended_named:
            self.context_config = replace(self.context_config, extended_named=True)
            self.backend.extended = True
            headers = beta_headers(self.backend.model, self.context_config)
            if headers:  # later requests of this client ask for the window, as compose does
                self.backend.client = self.backend.client.with_options(default_headers=headers)
        self.report_context()  # another model may have another window

    def describe_permissions(self) -> str:
        """`/permissions`: the rules by source, deny and ask first, with where each came from."""
        if self.parts.rules is None:
            return "No rules loaded."
        context = self.parts.rules.context
        lines: list[str] = []
        for source, rules in context.rules_by_source().items():
            lines.append(f"{source}:")
            lines.extend(f"  {r.behavior:<5} {r.display()}" for r in rules)
        if not context.trusted:
            lines.append("(this folder is not trusted: its allow rules and hooks are ignored)")
        return "\n".join(lines) if lines else "No rules: every non-read-only call asks."

    def set_sink(self, sink: Callable[[EngineEvent], None]) -> None:
        self._sink = sink

    def replace_rules(self, loaded: PermissionContext) -> None:
        """Settings files changed: their rules replace the files' part of the rules in force;
        the session's mode and its session-only rules (an "allow for this session") stay."""
        rules = self.parts.rules
        if rules is not None:
            rules.set_context(live_rules(loaded, rules.context))

    def status(self) -> SessionStatus:
        """What a front end shows about the session now (one frozen snapshot)."""
        from app.engine.api import McpServerStatus, SessionStatus

        transcript, rules = self.parts.transcript, self.parts.rules
        return SessionStatus(
            session_id=self.session_id,
            model=self.model,
            offline=self.offline,
            permission_mode=self.permission_mode,
            running=self.running,
            cwd=self.context.cwd,
            project_dir=self.parts.project_dir or self.context.project_dir or self.context.cwd,
            transcript_path=str(transcript.path) if transcript is not None else "",
            tools=tuple(self.tool_names),
            mcp_servers=tuple(
                McpServerStatus(s.get("name", ""), s.get("status", "")) for s in self.mcp_status()
            ),
            usage=self.usage.totals(),
            cost_usd=self.usage.total_cost_usd,
            transcript_lost=transcript.lost if transcript is not None else 0,
            transcript_loss=(transcript.first_loss or "") if transcript is not None else "",
            bypass_disabled=bool(rules is not None and rules.context.bypass_disabled),
        )

    def answer(self, question: PermissionQuestion, decision: PermissionDecision) -> bool:
        """Answer a PermissionRequested's question; False when it was answered already."""
        return question.answer(decision)

    def custom_commands(self) -> tuple[CommandInfo, ...]:
        """The project's and user's custom commands (/name), for completion and palettes."""
        from app.engine.api import CommandInfo
        from app.engine.command_turn import model_only_text

        found = self.parts.commands
        if found is None:
            return ()
        listed = [CommandInfo(c.name, c.help) for c in found.sorted()]
        catalog = self.parts.skills
        for skill in catalog.skills.sorted() if catalog is not None else ():
            if (
                not skill.user_invocable
                and not skill.is_command
                and skill.name not in found.commands
            ):
                listed.append(CommandInfo(skill.name, "", model_only_text(skill.name)))
        return tuple(listed)

    def history(self) -> tuple[EngineEvent, ...]:
        """A resumed conversation as the events a live one would have sent (what came before a
        compaction too, above its boundary), so a front end draws it as it was left. It may read
        files (resumed edits' diffs, Tool.recorded_view): call it off the UI loop."""
        from app.engine.replay import replay_events

        messages = [*self.parts.earlier_messages, *self.messages]
        return tuple(
            replay_events(
                messages,
                self.pool.tools,
                self.parts.user_denials,
                self.context.cwd,
                self.parts.recorded_results,
            )
        )

    def status_line_command(self) -> str | None:
        """The `statusLine` setting's command, if any."""
        from app.engine.status_line import status_command

        settings = self.parts.settings
        return status_command(settings.status_line if settings is not None else None)

    @property
    def wants_idle_notification(self) -> bool:
        hooks = self.parts.session_hooks
        return hooks is not None and hooks.has_hooks("Notification")

    async def notify_idle(self, message: str) -> None:
        """Notification hooks, `idle_prompt`: the prompt has waited for the user."""
        hooks = self.parts.session_hooks
        if hooks is not None and hooks.has_hooks("Notification"):
            await hooks.notification(message, "idle_prompt")

    # -- events and state ----------------------------------------------------------------------

    def emit(self, event: InternalEvent) -> None:
        """Send an event to the front end; the executor's events become tool-call views."""
        match event:
            case ToolQueued():
                self._deliver(self._calls.queued(event))
            case ToolStarted():
                self._deliver(self._calls.started(event))
            case ToolRunning():
                self._deliver(self._calls.running(event))
            case ToolProgressed():
                self._deliver(self._calls.progressed(event))
            case ToolFinished():
                self._deliver(self._calls.finished(event))
            case PermissionRequested():
                asked = self._calls.asked(event.question)
                if asked is not None:
                    self._deliver(asked)
                tool_use_id = event.question.tool_use_id
                self._deliver(event)
                event.question.on_answered(lambda d: self._answered(tool_use_id, d.behavior))
            case _:
                self._deliver(event)

    def _answered(self, tool_use_id: str, behavior: str = "allow") -> None:
        update = self._calls.answered(tool_use_id, allowed=behavior == "allow")
        if update is not None:
            self._deliver(update)

    def _deliver(self, event: EngineEvent) -> None:
        try:
            self._sink(event)
        except Exception as exc:  # a broken front end must not break the conversation
            debuglog.record("sink", f"the front end's sink raised on {type(event).__name__}", exc)

    def _emit_app_event(self, payload: object) -> None:
        from app.engine.events import AppEvent

        self.emit(AppEvent(payload))

    def append(self, message: Mapping[str, Any], results: Sequence[Any] = ()) -> None:
        """Add a message to the conversation and to the transcript, durably. `results` are the
        tool calls (CallOutcome) a message of tool results answers: the transcript line carries
        their data as Claude Code's `toolUseResult`."""
        record = dict(message)
        self.messages.append(record)
        writer = self.parts.transcript
        from app.engine.result_views import user_denials  # what tells a deny from an interrupt

        if writer is not None and not writer.append_message(
            self.session_id, record, _tool_use_result(results), **user_denials(results)
        ):
            # The conversation goes on in memory; the user must know a resume would miss this.
            self.emit(Notice(f"{writer.failure}; this message is not saved", level="warning"))

    # -- MCP ------------------------------------------------------------------------------------

    async def start_mcp(self, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Connect the MCP servers (each within its own time limit) and offer their tools.
        Servers that connect later (the TUI does not wait) join the pool when they do."""
        manager = self.parts.mcp
        if manager is None:
            return
        manager.on_change = lambda info: self.refresh_tools()
        await manager.start(timeout)
        self.refresh_tools()

    def refresh_tools(self, force: bool = False) -> None:
        """Rebuild the pool from the built-ins and the connected MCP servers' tools (`force`:
        even with the same names, as when a tool's description changed)."""
        from tools.registry import assemble_tool_pool

        manager, builtins = self.parts.mcp, self.parts.builtin_tools
        if builtins is None or (manager is None and not force):
            return
        pool = assemble_tool_pool(builtins, manager.tools() if manager else (), self.parts.rules)
        if pool.names == self.pool.names and not force:
            return
        self.pool = pool
        self.context = replace(self.context, tools=pool.tools)
        self.deps.tools = pool.tools

    async def reconnect_mcp(self, name: str) -> str:
        """`/mcp reconnect NAME`: connect a server again; returns a line saying how it went."""
        manager = self.parts.mcp
        if manager is None:
            return "No MCP servers configured."
        info = await manager.reconnect(name)
        self.refresh_tools()
        detail = f": {info.error}" if info.error else f", {len(info.tools)} tools"
        return f"{info.name}: {info.status}{detail}"

    def mcp_status(self) -> list[dict[str, str]]:
        manager = self.parts.mcp
        return manager.status() if manager is not None else []

    def take_pending_context(self) -> list[str]:
        """Context from SessionStart hooks, delivered with the next prompt."""
        pending, self._pending_context = self._pending_context, []
        return pending

    async def start(self, source: str = "startup") -> None:
        """Run SessionStart hooks once (before the first turn)."""
        if self._started_hooks or self.parts.session_hooks is None:
            return
        self._started_hooks = True
        result = await self.parts.session_hooks.session_start(source, self.context)
        from app.engine.events import Notice

        for message in result.messages:
            self.emit(Notice(message.text, message.level))
        self._pending_context.extend(result.additional_context)
        # Then one InstructionsLoaded per memory file of the system prompt, as Claude Code fires.
        for path, memory_type in self.parts.memory_files:
            loaded = await self.parts.session_hooks.instructions_loaded(
                path, memory_type, self.context
            )
            for message in loaded.messages:
                self.emit(Notice(message.text, message.level))

    # -- turns ----------------------------------------------------------------------------------

    async def run_turn(
        self, prompt: str, attachments: Sequence[Mapping[str, Any]] = ()
    ) -> TurnEnded:
        from app.engine.turn import run_turn

        if self._turn_abort is not None:
            raise RuntimeError("a turn is already running")
        prompt = encodable(prompt)
        # The controller exists before the SessionStart hooks run: a Ctrl+C while a slow hook
        # runs must interrupt this turn, not be dropped as "idle" and let the turn go on.
        self._turn_abort = AbortController()
        try:
            await self.start("resume" if self.messages else "startup")
            from app.engine.command_turn import run_expanded_turn

            result: TurnEnded = await run_expanded_turn(
                self, prompt, self._turn_abort, run_turn, attachments
            )
        finally:
            self._turn_abort = None
        self.last_result = result
        return result

    def interrupt(self) -> bool:
        """Abort the running turn (Ctrl+C): the HTTP stream closes, tools stop, an open permission
        prompt resolves as aborted, and the conversation stays valid. False when idle."""
        if self._turn_abort is None:
            return False
        return self._turn_abort.abort("user_interrupt")

    def send_while_running(self, prompt: str) -> bool:
        """A prompt typed while the turn runs: tools declared "cancel" stop, "block" tools finish,
        and the prompt goes to the model with this batch's results. False when no turn runs."""
        if self._turn_abort is None:
            return False
        self._queued_prompts.append(encodable(prompt))
        if self.executor is not None:
            self.executor.interrupt_for_user_message()
        return True

    # -- background agents --------------------------------------------------------------------

    def deliver_notification(self, text: str, summary: str) -> None:
        """A background agent ended: its notification goes to the model with the next request
        of a running turn (after that batch's results), else with the next turn."""
        self._notifications.append(text)
        self.emit(Notice(summary))
        self._notified.set()

    def take_notifications(self) -> list[str]:
        taken, self._notifications = self._notifications, []
        return taken

    @property
    def pending_notifications(self) -> bool:
        return bool(self._notifications)

    def background_agents_running(self) -> bool:
        return any(
            t.kind == "agent" and t.status == "running" for t in self.context.background.all()
        )

    async def wait_for_notification(self, timeout: float) -> None:  # noqa: ASYNC109
        """Until a notification is pending or `timeout` seconds pass."""
        if self._notifications:
            return
        self._notified.clear()
        try:
            await asyncio.wait_for(self._notified.wait(), timeout)
        except TimeoutError:
            pass

    async def run_notification_turn(self) -> TurnEnded:
        """A turn whose prompt is the pending notifications (headless, after the user's turn
        ended with background agents still running, as Claude Code's -p goes on)."""
        from app.engine.turn import run_turn

        if self._turn_abort is not None:
            raise RuntimeError("a turn is already running")
        self._turn_abort = AbortController()
        try:
            blocks = [{"type": "text", "text": t} for t in self.take_notifications()]
            result = await run_turn(
                self, "(background agent notification)", self._turn_abort, blocks
            )
        finally:
            self._turn_abort = None
        self.last_result = result
        return result

    def take_queued_prompts(self) -> list[str]:
        queued, self._queued_prompts = self._queued_prompts, []
        return queued

    # -- context ----------------------------------------------------------------------------------

    def context_window(self) -> int:
        from app.engine.long_session import window_of

        return window_of(self)

    def context_tokens(self) -> int:
        from app.engine.long_session import tokens_in_use

        return tokens_in_use(self)

    def fixed_tokens(self) -> int:
        from app.engine.long_session import fixed_tokens

        return fixed_tokens(self)

    def report_context(self) -> None:
        """Emit a ContextUpdated with the tokens in use now (the TUI's meter)."""
        from app.engine.long_session import report

        report(self)

    def context_breakdown(self) -> list[str]:
        """`/context`: the window and what fills it, one line a part."""
        from app.engine.long_session import breakdown

        return breakdown(self).lines()

    def replace_messages(self, messages: list[dict[str, Any]], record: dict[str, Any]) -> None:
        from app.engine.long_session import replace_messages

        replace_messages(self, messages, record)

    async def compact(self, instructions: str = "") -> TurnEnded:
        """`/compact [instructions]`. Refused while a turn runs (it needs the conversation)."""
        from app.engine.long_session import run_manual

        if self._turn_abort is not None:
            raise RuntimeError("a turn is already running")
        self._turn_abort = AbortController()
        try:
            result = await run_manual(self, instructions, self._turn_abort)
        finally:
            self._turn_abort = None
        self.last_result = result
        return result

    def clear(self) -> bool:
        """Forget the conversation (/clear); the transcript keeps what was said. Refused (False)
        while a turn runs: its requests need the messages they started with."""
        if self._turn_abort is not None:
            return False
        self.messages = []
        self.context_state.forget_count()
        self.report_context()
        if self.parts.transcript is not None:
            # Without this mark, --continue after /clear would bring the forgotten part back.
            self.parts.transcript.append_clear(self.session_id)
        return True

    async def close(self, reason: str = "exit") -> None:
        if self.parts.session_hooks is not None and self._started_hooks:
            try:
                await self.parts.session_hooks.session_end(reason, self.context)
            except Exception as exc:
                # A broken SessionEnd hook must not keep lathe from exiting; the log keeps it.
                debuglog.record("hook", "the SessionEnd hook raised; closing anyway", exc)
        await self.context.background.stop_all()
        if self.parts.mcp is not None:
            await self.parts.mcp.close()
        if self.parts.transcript is not None:
            self.parts.transcript.close()


def _tool_use_result(results: Sequence[Any]) -> Any:
    from app.transcript import tool_use_result

    if not results:
        return None
    shapes = [tool_use_result(r) for r in results]
    return shapes[0] if len(shapes) == 1 else shapes


if TYPE_CHECKING:
    from app.engine.api import SessionPort

    def _is_a_port(session: Session) -> SessionPort:
        return session  # mypy proves the Session implements the front ends' port

    def _is_a_command_session(session: Session) -> CommandSession:
        return session  # and the port commands and skills take (app/commands/ports.py)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(prompt: str) -> str:
    """The prompt with each lone surrogate made U+FFFD. JSON lets a client send one ("\\ud800", or
    argv's surrogate escapes for bytes that are not UTF-8), UTF-8 cannot carry it: kept, it
    would fail this request and every later one that resends the conversation."""
    return _LONE_SURROGATE.sub("\ufffd", prompt)
