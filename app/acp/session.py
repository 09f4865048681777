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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

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
    TextContentBlock,
)

from app.acp import updates as u
from app.acp.client_fs import ClientEditTool, ClientFiles, ClientReadTool, ClientWriteTool
from app.acp.client_terminal import TERMINAL_KEY, ClientBashTool, ClientTerminals
from app.acp.permission import answer
from app.cli import CliOptions
from app.engine.events import (
    AppEvent,
    EngineEvent,
    ErrorOccurred,
    Notice,
    PermissionRequested,
    Retrying,
    TextDelta,
    ThinkingDelta,
    TurnEnded,
)
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolStarted
from tools.todo_write import TodoListChanged

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
        self.session: Any = None
        self.resumed: Any = None
        self.session_id = ""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._outbox: asyncio.Queue[Any] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._views: dict[str, u.ToolView] = {}
        self._output: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._mode = "default"
        self._cancelled = False
        self._idle = asyncio.Event()
        self._idle.set()

    # -- building ------------------------------------------------------------------------------

    async def open(self, opts: CliOptions, cwd: str) -> list[str]:
        """Build the engine session in `cwd` (resuming `opts.resume` if set); its warnings."""
        from app.engine.prompter import EventPrompter
        from app.engine.setup import SetupError, build_session

        holder: dict[str, EventPrompter] = {}

        class _Deferred:
            async def ask(self, prompt: Any) -> None:
                await holder["p"].ask(prompt)

        def make() -> Any:
            # Not interactive in the engine's sense: broken settings fail closed and there is no
            # offline demo; but there is someone to ask, so questions go to the client.
            return build_session(
                opts, interactive=False, cwd=cwd, sink=self.sink, prompter=_Deferred()
            )

        try:
            setup = await asyncio.to_thread(make)
        except SetupError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        self.session = setup.session
        self.resumed = setup.resumed
        self.session_id = self.session.session_id
        holder["p"] = EventPrompter(self.sink, self.session.parts.extra["decider"])
        self._mode = self.session.permission_mode
        self._install_client_tools()
        self._writer = asyncio.create_task(self._write_loop())
        await self.session.start_mcp()
        for warning in setup.warnings:
            _log(f"warning: {warning}")
        return list(setup.warnings)

    def _install_client_tools(self) -> None:
        """Swap Read, Edit, Write and Bash for their client-backed twins where the client offers
        the capability; the twins fall back to the local tool for what the client cannot do."""
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
        )
        twins: dict[str, Callable[[], Any]] = {}
        if can_read:
            twins["Read"] = lambda: ClientReadTool(files)
        if can_read and can_write:
            twins["Edit"] = lambda: ClientEditTool(files)
            twins["Write"] = lambda: ClientWriteTool(files)
        if self.caps.terminal:
            twins["Bash"] = lambda: ClientBashTool(terminals)
        if not twins:
            return
        from tools.bash import BashTool
        from tools.edit import EditTool
        from tools.read import ReadTool
        from tools.write import WriteTool

        base: dict[str, type[Any]] = {
            "Read": ReadTool,
            "Edit": EditTool,
            "Write": WriteTool,
            "Bash": BashTool,
        }

        def swap(tools: Sequence[Any]) -> tuple[Any, ...]:
            return tuple(
                twins[t.name]() if t.name in twins and type(t) is base[t.name] else t for t in tools
            )

        s = self.session
        # The pool the model sees, the pipeline's lookup and the rebuild after MCP changes.
        s.pool = replace(s.pool, tools=swap(s.pool.tools))
        s.context = replace(s.context, tools=s.pool.tools)
        s.deps.tools = s.pool.tools
        if s.parts.builtin_tools is not None:
            s.parts.builtin_tools = swap(s.parts.builtin_tools)

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
        context = getattr(self.session.parts.extra.get("decider"), "context", None)
        disabled = bool(getattr(context, "bypass_disabled", False))
        available = [
            SessionMode(id=mode, name=name, description=desc)
            for mode, name, desc in MODES
            if not (mode == "bypassPermissions" and disabled)
        ]
        return SessionModeState(
            current_mode_id=self.session.permission_mode, available_modes=available
        )

    def set_mode(self, mode: str) -> None:
        if mode not in {m.id for m in self.modes().available_modes}:
            raise RequestError.invalid_params({"message": f"unknown or disabled mode {mode!r}"})
        self.session.set_permission_mode(mode)
        self._mode = self.session.permission_mode

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
        custom = self.session.parts.extra.get("commands")
        for command in custom.sorted() if custom is not None else ():
            commands.append(
                AvailableCommand(
                    name=command.name,
                    description=command.help,
                    input={"hint": command.argument_hint} if command.argument_hint else None,  # type: ignore[arg-type]
                )
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

    def _tool(self, name: str) -> Any:
        for tool in self.session.tool_pool_tools:
            if tool.name == name or name in getattr(tool, "aliases", ()):
                return tool
        return None

    def _on_event(self, event: EngineEvent) -> None:
        match event:
            case TextDelta():
                self._send(u.message_chunk(event.text))
            case ThinkingDelta():
                self._send(u.thought_chunk(event.text))
            case ToolQueued():
                view = u.ToolView(self._tool(event.name), event.name, event.input)
                self._views[event.tool_use_id] = view
                self._send(view.start(event.tool_use_id))
            case ToolStarted():
                self._send(u.status_update(event.tool_use_id, "in_progress"))
            case ToolProgressed():
                self._progress(event)
            case ToolFinished():
                known = self._views.pop(event.tool_use_id, None)
                view = known or u.ToolView(None, event.outcome.tool_name, event.outcome.input)
                self._output.pop(event.tool_use_id, None)
                outcome = event.outcome
                self._send(
                    view.finished(
                        event.tool_use_id, outcome.result_block, outcome.is_error, outcome.data
                    )
                )
            case PermissionRequested():
                prompt = event.prompt
                view = self._views.get(prompt.tool_use_id) or u.ToolView(
                    prompt.tool, prompt.tool_name, prompt.input
                )
                self._spawn(self._ask(prompt, view))
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

    def _progress(self, event: ToolProgressed) -> None:
        progress = event.progress
        terminal = progress.data.get(TERMINAL_KEY) if progress.data else None
        if isinstance(terminal, str):
            self._send(
                u.status_update(
                    event.tool_use_id, "in_progress", content=[u.terminal_content(terminal)]
                )
            )
        elif progress.output:
            shown = (self._output.get(event.tool_use_id, "") + progress.output)[
                -u.MAX_SHOWN_CHARS :
            ]
            self._output[event.tool_use_id] = shown
            self._send(
                u.status_update(event.tool_use_id, "in_progress", content=[u.text_content(shown)])
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

    async def _ask(self, prompt: Any, view: u.ToolView) -> None:
        async def ask(tool_call: Any, options: Any) -> Any:
            await self.flush()  # the tool call first, then the question about it
            return await self.conn.request_permission(
                session_id=self.session_id, tool_call=tool_call, options=options
            )

        try:
            await answer(prompt, view, ask)
        finally:
            # Whatever happened, the question is answered: a rejection unless someone won.
            from app.acp.permission import rejected

            prompt.resolver.resolve(rejected())
            self._check_mode()

    # -- turns ------------------------------------------------------------------------------------

    async def replay(self, messages: Sequence[Mapping[str, Any]]) -> None:
        for update in u.replay(messages, self.session.tool_pool_tools):
            self._send(update)
        await self.flush()

    async def prompt(self, blocks: Sequence[Any]) -> PromptResponse:
        if self.session.running:
            raise RequestError.invalid_request({"message": "a prompt is already running"})
        self._cancelled = False
        self._idle.clear()
        try:
            return await self._prompt(blocks)
        finally:
            self._idle.set()

    async def _prompt(self, blocks: Sequence[Any]) -> PromptResponse:
        text = prompt_text(blocks)
        command, _, arg = text.strip().partition(" ")
        try:
            if command == "/compact":
                result: TurnEnded = await self.session.compact(arg.strip())
                if not result.is_error:
                    self._send(u.message_chunk("Conversation compacted."))
            elif command == "/context":
                self._send(u.message_chunk("\n".join(self.session.context_breakdown())))
                result = TurnEnded("end_turn", "", False, "success", 0)
            else:
                result = await self.session.run_turn(text)
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


def prompt_text(blocks: Sequence[Any]) -> str:
    """The prompt's content blocks as the text the engine takes: text as is, a linked file as
    an @-mention, an embedded resource's text as context with its address."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
            continue
        kind = getattr(block, "type", "")
        if kind == "resource_link":
            uri = str(getattr(block, "uri", ""))
            parts.append("@" + uri.removeprefix("file://"))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            body = getattr(resource, "text", None)
            uri = str(getattr(resource, "uri", ""))
            if isinstance(body, str):
                parts.append(f'<context ref="{uri}">\n{body}\n</context>')
        # Images and audio are not offered (promptCapabilities), so none arrive.
    return "\n".join(parts)
