"""One ACP session: an engine Session, the updates it streams, its questions and its mode.

Events reach the client in the order the engine emits them: a single writer task sends them,
and every request lathe makes of the client (a permission question) waits until what came
before it is out, so the tool call is known before the question about it. A prompt's response
goes only after all of its updates.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    AvailableCommand,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CurrentModeUpdate,
    PromptResponse,
    SessionMode,
    SessionModeState,
    StopReason,
)

from app.acp import updates as u
from app.acp.client_fs import ClientFiles
from app.acp.client_terminal import ClientTerminals
from app.acp.compose import Capabilities, ToolAdapter, build, mcp_failures
from app.acp.permission import answer, rejected
from app.acp.prompt import PromptError, clean_text, prompt_parts, prompt_text
from app.engine.api import (
    AppEvent,
    EngineEvent,
    ErrorOccurred,
    Notice,
    PermissionQuestion,
    PermissionRequested,
    Retrying,
    SessionPort,
    SetupError,
    TextDelta,
    ThinkingDelta,
    ToolCallUpdated,
    ToolCallView,
    TurnEnded,
)
from tools.todo_write import TodoListChanged

__all__ = ["AcpSession", "clean_text", "prompt_text", "stop_reason"]

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions

MODES: tuple[tuple[str, str, str], ...] = (
    ("default", "Default", "Asks before edits and commands"),
    ("acceptEdits", "Accept Edits", "Edits in the working folders without asking"),
    ("plan", "Plan", "Reads and plans; changes nothing"),
    ("dontAsk", "Don't Ask", "Refuses whatever would ask"),
    ("bypassPermissions", "Bypass Permissions", "Runs everything without asking"),
)
BUILTIN_COMMANDS = (
    ("compact", "Summarise the conversation to free context", "instructions for the summary"),
    ("context", "Show what fills the context window", None),
)


def _log(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"lathe: {text}", file=sys.stderr, flush=True)


class AcpSession:
    def __init__(self, conn: Client, caps: ClientCapabilities | None) -> None:
        self.conn = conn
        self.caps = caps or ClientCapabilities()
        self.session: SessionPort | None = None  # set by start() (session/new, session/load)
        self.adapter: ToolAdapter | None = None
        self.session_id = ""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._outbox: asyncio.Queue[Any] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._views: dict[str, u.ToolView] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._mode = "default"
        self._bypass_off = False
        self._cancelled = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._notices: list[str] = []

    # -- building ------------------------------------------------------------------------------

    async def open(self, opts: CliOptions, cwd: str, mcp_servers: Sequence[Any] = ()) -> list[str]:
        """Build the engine session in `cwd` (resuming `opts.resume` if set) with the client's
        MCP servers; its warnings."""
        self.adapter = ToolAdapter(self._capabilities())
        adapter = self.adapter
        try:
            setup = await asyncio.to_thread(build, opts, cwd, self.sink, adapter, mcp_servers)
        except SetupError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        self.session = setup.session
        self.session_id = self.session.session_id
        # A policy's disable_bypass_mode: the mode is not offered, since it cannot be set.
        self._bypass_off = self.session.status().bypass_disabled
        self._mode = self.session.permission_mode
        self._writer = asyncio.create_task(self._write_loop())
        await self.session.start_mcp()
        # The client's servers are read as --mcp-config's (`lathe --acp` takes no such flag).
        warnings = [
            w.replace("--mcp-config: ", "mcpServers: ")
            for w in (*setup.warnings, *mcp_failures(self.session))
        ]
        for warning in warnings:
            _log(f"warning: {warning}")
        # The MCP problems (a server that failed, a malformed entry) are the client's to see.
        self._notices = [w for w in warnings if "MCP" in w or "mcp" in w]
        return warnings

    def _capabilities(self) -> Capabilities:
        """The client's methods lathe may use, from what it said it offers."""
        fs = self.caps.fs
        can_read = bool(fs and fs.read_text_file)
        can_write = bool(fs and fs.write_text_file)
        files = ClientFiles(
            self._read_text if can_read else None, self._write_text if can_write else None
        )
        terminals = ClientTerminals(
            self._term_create,
            self._term_wait,
            self._term_output,
            self._term_kill,
            self._term_release,
            self._terminal_shown,
        )
        return Capabilities(files, terminals if self.caps.terminal else None)

    # -- the client's capabilities --------------------------------------------------------------

    async def _read_text(self, path: str) -> str:
        response = await self.conn.read_text_file(session_id=self.session_id, path=path)
        return str(response.content)

    async def _write_text(self, path: str, text: str) -> None:
        await self.conn.write_text_file(session_id=self.session_id, path=path, content=text)

    async def _term_create(self, command: str, cwd: str, limit: int) -> str:
        response = await self.conn.create_terminal(
            session_id=self.session_id, command=command, cwd=cwd, output_byte_limit=limit
        )
        return str(response.terminal_id)

    async def _term_wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        r = await self.conn.wait_for_terminal_exit(
            session_id=self.session_id, terminal_id=terminal_id
        )
        return r.exit_code, r.signal

    async def _term_output(self, terminal_id: str) -> tuple[str, bool]:
        r = await self.conn.terminal_output(session_id=self.session_id, terminal_id=terminal_id)
        return r.output, bool(r.truncated)

    async def _term_kill(self, terminal_id: str) -> None:
        await self.conn.kill_terminal(session_id=self.session_id, terminal_id=terminal_id)

    async def _term_release(self, terminal_id: str) -> None:
        await self.conn.release_terminal(session_id=self.session_id, terminal_id=terminal_id)

    # -- modes and commands ---------------------------------------------------------------------

    def modes(self) -> SessionModeState:
        available = [
            SessionMode(id=mode, name=name, description=desc)
            for mode, name, desc in MODES
            if not (mode == "bypassPermissions" and self._bypass_off)
        ]
        return SessionModeState(
            current_mode_id=self.port.permission_mode, available_modes=available
        )

    @property
    def port(self) -> SessionPort:
        """The engine session once start() built it; a request before that is refused."""
        if self.session is None:
            raise RequestError.invalid_request({"message": "the session is not open yet"})
        return self.session

    def set_mode(self, mode: str) -> None:
        if mode not in {m.id for m in self.modes().available_modes}:
            raise RequestError.invalid_params({"message": f"unknown or disabled mode {mode!r}"})
        self.port.set_permission_mode(mode)
        self._mode = self.port.permission_mode
        if self._mode != mode:  # a policy keeps bypassPermissions off
            raise RequestError.invalid_params({"message": f"mode {mode!r} is disabled here"})

    def tell_problems(self) -> None:
        """What went wrong opening the session that the client should see (an MCP server that
        did not start), as an agent message: ACP has no other place for it."""
        for text in self._notices:
            self._send(u.message_chunk(f"lathe: {text}\n"))
        self._notices = []

    def advertise_commands(self) -> None:
        """available_commands_update: lathe's headless commands and the custom ones."""
        commands = [
            AvailableCommand(
                name=name,
                description=desc,
                input={"hint": hint} if hint else None,  # type: ignore[arg-type]
            )
            for name, desc, hint in BUILTIN_COMMANDS
        ]
        commands.extend(
            AvailableCommand(name=c.name, description=c.help)
            for c in self.port.custom_commands()
            if not c.refusal  # a skill only the model may invoke is no command
        )
        self._send(
            AvailableCommandsUpdate(
                session_update="available_commands_update", available_commands=commands
            )
        )

    # -- events -> updates ----------------------------------------------------------------------

    def sink(self, event: EngineEvent) -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._on_event, event)
        else:
            self._on_event(event)

    def _send(self, update: Any) -> None:
        self._outbox.put_nowait(update)

    async def _write_loop(self) -> None:
        while True:
            update = await self._outbox.get()
            try:
                await self.conn.session_update(session_id=self.session_id, update=update)
            except Exception as exc:  # a client that went away; the turn goes on to its end
                _log(f"could not send an update: {exc}")
            finally:
                self._outbox.task_done()

    async def flush(self) -> None:
        await self._outbox.join()

    def _on_event(self, event: EngineEvent) -> None:
        match event:
            case TextDelta():
                self._send(u.message_chunk(event.text))
            case ThinkingDelta():
                self._send(u.thought_chunk(event.text))
            case ToolCallUpdated():
                self._tool_call(event)
            case PermissionRequested():
                question = event.question
                view = self._views.get(question.tool_use_id) or u.ToolView(
                    ToolCallView(
                        question.tool_use_id, question.tool_name, question.title, question.input
                    )
                )
                self._spawn(self._ask(question, view))
            case AppEvent(payload=TodoListChanged() as changed):
                self._send(u.plan(changed.todos))
            case ErrorOccurred():
                _log(event.message)  # the prompt's error response carries it to the client
            case Retrying():
                _log(f"{event.reason}; retrying in {event.delay_s:.1f}s (attempt {event.attempt})")
            case Notice() if event.level != "info":
                _log(event.text)
            case _:
                pass
        self._check_mode()

    def _tool_call(self, event: ToolCallUpdated) -> None:
        call = event.view
        if event.change == "queued":
            view = u.ToolView(call)
            self._views[call.tool_use_id] = view
            self._send(view.start(call.tool_use_id))
        elif event.change == "running" and call.tool_use_id in self._views:
            # in_progress when the call really runs (the engine's "running": allowed, past its
            # hooks), MCP tools too; while it is checked or its question is open it is pending.
            self._send(u.status_update(call.tool_use_id, "in_progress"))
        elif event.change == "progressed" and event.output:
            self._send(
                u.status_update(
                    call.tool_use_id, "in_progress", content=[u.text_content(call.output_tail)]
                )
            )
        elif event.change == "finished":
            known = self._views.pop(call.tool_use_id, None)
            view = known or u.ToolView(call)
            self._send(view.finished(call))

    def _terminal_shown(self, tool_use_id: str, terminal_id: str) -> None:
        """A call's command runs in the client's terminal: the tool call shows it live."""
        self._send(
            u.status_update(tool_use_id, "in_progress", content=[u.terminal_content(terminal_id)])
        )

    def _check_mode(self) -> None:
        if self.session is None:
            return
        mode = self.session.permission_mode
        if mode != self._mode:
            self._mode = mode
            self._send(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
            )

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ask(self, question: PermissionQuestion, view: u.ToolView) -> None:
        async def ask(tool_call: Any, options: Any) -> Any:
            await self.flush()  # the tool call first, then the question about it
            return await self.conn.request_permission(
                session_id=self.session_id, tool_call=tool_call, options=options
            )

        try:
            await answer(question, view, ask)
        finally:
            # Whatever happened, the question is answered: a rejection unless someone won.
            question.answer(rejected())
            self._check_mode()

    # -- turns ------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A prompt (or a /compact) is being answered."""
        return not self._idle.is_set()

    async def replay(self) -> None:
        """A resumed session's history as updates, all sent before session/load answers."""
        # Off the protocol loop: the replay rebuilds resumed edits' diffs from the files on disk.
        history = await asyncio.to_thread(self.port.history)
        for update in u.replay(history):
            self._send(update)
        await self.flush()

    async def prompt(self, blocks: Sequence[Any]) -> PromptResponse:
        if self.port.running:
            raise RequestError.invalid_request({"message": "a prompt is already running"})
        self._cancelled = False
        self._idle.clear()
        try:
            return await self._prompt(blocks)
        finally:
            self._idle.set()

    async def _prompt(self, blocks: Sequence[Any]) -> PromptResponse:
        try:
            text, attachments = prompt_parts(blocks)
        except PromptError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        if not text.strip() and not attachments:
            # The API refuses an empty message; say so here, before anything is sent or kept.
            raise RequestError.invalid_params({"message": "the prompt is empty"})
        command, _, arg = text.strip().partition(" ")
        try:
            if command == "/compact":
                result: TurnEnded = await self.port.compact(arg.strip())
                if not result.is_error:
                    self._send(u.message_chunk("Conversation compacted."))
            elif command == "/context":
                self._send(u.message_chunk("\n".join(self.port.context_breakdown())))
                result = TurnEnded("end_turn", "", False, "success", 0)
            else:
                result = await self.port.run_turn(text, attachments)
        except Exception as exc:
            await self.flush()
            if self._cancelled:
                return PromptResponse(stop_reason="cancelled")
            raise RequestError.internal_error({"message": str(exc)}) from None
        await self.flush()
        reason = stop_reason(result, self._cancelled)
        if reason is None:
            raise RequestError.internal_error({"message": result.result_text or "the turn failed"})
        return PromptResponse(stop_reason=reason)

    def cancel(self) -> None:
        """session/cancel: what Ctrl+C does (tools stop, open questions resolve as aborted)."""
        self._cancelled = True
        if self.session is not None:
            self.session.interrupt()

    async def close(self, grace_s: float = 10.0) -> None:
        self.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace_s)
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 2)
        if self._writer is not None:
            self._writer.cancel()
        if self.session is not None:
            await self.session.close()


def stop_reason(result: TurnEnded, cancelled: bool) -> StopReason | None:
    """ACP's stop reason for a finished turn; None for a failure that is an error response."""
    if cancelled or result.subtype == "interrupted":
        return "cancelled"
    if result.subtype == "error_max_turns":
        return "max_turn_requests"
    if result.stop_reason == "max_tokens":
        return "max_tokens"
    if result.stop_reason == "refusal":
        return "refusal"
    if result.is_error:
        return None
    return "end_turn"
