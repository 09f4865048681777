"""`lathe --input-format stream-json --output-format stream-json`: the Claude Agent SDK's protocol.

stdin carries JSON lines for as long as it stays open: user messages (each one a turn, run one
after the other) and control requests (answered at once, also while a turn runs); stdout carries
Claude Code's stream-json lines and lathe's own control requests (can_use_tool, hook_callback,
mcp_message). Every turn ends with a result line, an interrupted one too. When stdin closes, the
turns already received still run; then lathe exits (1 if the last result was an error, as Claude
Code does, so the SDK can raise it with the result's text).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from app import __version__
from app.engine.api import (
    AssistantMessage,
    EngineEvent,
    PermissionRequested,
    SessionPort,
    SetupError,
    TurnEnded,
    UsageUpdated,
)
from app.exit_signals import EXIT_SIGNALS, ExitSignals, exit_code, install
from app.protocol import handlers
from app.protocol.agents import define_agents
from app.protocol.control import ControlChannel
from app.protocol.hooks import SdkHookBridge
from app.protocol.options import StructuredOutputTool, protocol_engine_options
from app.protocol.printer import ProtocolPrinter, TurnMeter, result_line, setup_error_line
from app.protocol.prompter import StdioPrompter
from app.protocol.reader import read_lines, scrub
from app.protocol.sdk_mcp import SdkMcpTransports
from app.protocol.wire import (
    PROTOCOL_VERSION,
    LineWriter,
    control_error,
    control_response,
    system_line,
)

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions

# A turn's prompt: its text and the image or document blocks sent with it.
Prompt = tuple[str, list[dict[str, Any]]]
HEADLESS_COMMANDS = {"compact": "Compact the conversation", "context": "Show the context usage"}


def run_protocol(opts: CliOptions, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    try:
        return asyncio.run(ProtocolSession(opts, out or sys.stdout, err or sys.stderr).main())
    except KeyboardInterrupt:
        return 130


class ProtocolSession:
    def __init__(self, opts: CliOptions, out: IO[str], err: IO[str]) -> None:
        self.opts = opts
        self.err = err
        self.writer = LineWriter(out)
        self.channel = ControlChannel(self.writer)
        self.printer = ProtocolPrinter(self.writer, err, opts.include_partial_messages)
        self.inbox: asyncio.Queue[Prompt | None] = asyncio.Queue()
        self.disabled_servers: set[str] = set()
        self.protocol_version = PROTOCOL_VERSION
        self.pid = os.getpid()
        # Set in main() once built; events can arrive before that (the build emits warnings).
        self._session: SessionPort | None = None
        self.prompter: StdioPrompter | None = None
        self.structured: StructuredOutputTool | None = None
        self.default_model = ""
        self._inflight: dict[str, asyncio.Task[None]] = {}
        self._hooks: SdkHookBridge | None = None
        self._budget_hit = False
        self._stopping = False
        self._turn_running = False

    @property
    def session(self) -> SessionPort:
        """The session main() built (what runs after the build may rely on it)."""
        if self._session is None:
            raise RuntimeError("the protocol session is not built yet")
        return self._session

    # -- life cycle -------------------------------------------------------------------------------

    async def main(self) -> int:
        from app.compose import build_session

        loop = asyncio.get_running_loop()
        signals = ExitSignals(lambda sig: self._on_signal())
        install(loop.add_signal_handler, signals)
        transports = SdkMcpTransports(self.channel)
        options, self.structured = protocol_engine_options(self.opts)
        stdio = self.opts.sdk.permission_prompt_tool == "stdio"
        if stdio:
            # Questions come as PermissionRequested events; the SDK's can_use_tool answers them.
            self.prompter = StdioPrompter(
                self.channel,
                notify=lambda text: self.printer.note(f"lathe: {text}"),
                interrupt=self.interrupt,
                on_state=self.printer.state,
                allow_bypass=self.opts.sdk.allow_bypass,
            )
        try:
            setup = build_session(
                options,
                interactive=False,
                ask_user=stdio,
                sink=self.on_event,
                sdk_transport=transports.open,
            )
        except SetupError as exc:
            self.printer.note(f"lathe: {exc}")
            # As Claude Code: an error result the SDK raises with the reason. Then the contract's
            # exit 2 for bad usage or configuration (broken settings, as plain -p exits), and
            # Claude Code's 1 for a session to resume that is not there.
            text = self._setup_error_text(exc)
            self.writer.line(setup_error_line(text))
            return 1 if text.startswith("No conversation found") else 2
        for warning in setup.warnings:
            self.printer.note(f"lathe: warning: {warning}")
        self._session = session = setup.session
        self.default_model = session.model
        self.printer.session_id = session.session_id
        self.define_agents(self.opts.sdk.agents)
        self._hooks = SdkHookBridge(
            self.channel, self.writer, session.session_id, self.opts.sdk.include_hook_events
        )
        self._hooks.observe(session.controls)
        if self.opts.prompt:
            self.inbox.put_nowait((self.opts.prompt, []))
        # `-p PROMPT --output-format stream-json --verbose` without stream-json input: the prompt
        # is the one turn and stdin is not ours to read.
        reading = asyncio.create_task(
            self._read() if self.opts.sdk.streaming_input else self._one()
        )
        # SDK MCP servers answer through stdin, so they connect once the reader runs.
        mcp = asyncio.create_task(session.start_mcp())
        last: dict[str, Any] | None = None
        try:
            await mcp
            while True:
                prompt = await self.inbox.get()
                if prompt is None and not self._stopping and self._agents_pending():
                    # Agents the model started in the background still run: wait, and give each
                    # notification its turn and result line (as Claude Code and `lathe -p` do).
                    self.inbox.put_nowait(None)
                    last = await self._background_turn() or last
                    continue
                if prompt is None or self._stopping:
                    break
                last = await self._turn(prompt)
        finally:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            for task in list(self._inflight.values()):
                task.cancel()
            self.channel.close()
            await session.close("other")
            signals.cancel_deadline()
            for sig in EXIT_SIGNALS:
                try:
                    loop.remove_signal_handler(sig)
                except (NotImplementedError, RuntimeError):
                    pass
        if signals.received is not None:
            return exit_code(signals.received)
        return 1 if last is not None and last.get("is_error") else 0

    def _setup_error_text(self, exc: SetupError) -> str:
        resume = self.opts.resume
        if resume and not self.opts.continue_session and str(exc).startswith("cannot resume"):
            return f"No conversation found with session ID: {resume}"
        return str(exc)

    def _on_signal(self) -> None:
        self._stopping = True
        self.interrupt()
        self.inbox.put_nowait(None)

    # -- turns ------------------------------------------------------------------------------------

    def _agents_pending(self) -> bool:
        session = self.session
        return session.pending_notifications or session.background_agents_running()

    async def _background_turn(self) -> dict[str, Any] | None:
        session = self.session
        while not self._stopping:
            if session.pending_notifications:
                return await self._turn(("", []), notification=True)
            if not session.background_agents_running():
                return None
            await session.wait_for_notification(0.25)
        return None

    async def _turn(self, prompt: Prompt, notification: bool = False) -> dict[str, Any]:
        session = self.session
        self.printer.state("running")
        self.writer.line(self.init_line())
        meter = TurnMeter(session)
        self.printer.interrupted_during_tools = None
        self.printer.aborting = False
        self._budget_hit = False
        self._turn_running = True
        interrupted = False
        structured = self.structured
        if structured is not None:
            structured.value = None
        try:
            if notification:
                result = await session.run_notification_turn()
            else:
                result = await _run(session, *prompt)
            interrupted = result.subtype == "interrupted"
        except Exception as exc:  # the turn failed; the session (and the SDK's wait) goes on
            self.printer.note(f"lathe: the turn failed: {type(exc).__name__}: {exc}")
            result = TurnEnded(
                None, f"{type(exc).__name__}: {exc}", True, "error_during_execution", 0
            )
        finally:
            self._turn_running = False
        override = "error_max_budget_usd" if self._budget_hit else None
        line = result_line(
            session,
            result,
            meter,
            self.printer,
            interrupted=interrupted and not override,
            subtype_override=override,
        )
        if structured is not None and structured.value is not None:
            line["structured_output"] = structured.value
        self._as_claude_code(line, interrupted)
        self.writer.line(line)
        self.printer.state("idle")
        return line

    def _as_claude_code(self, line: dict[str, Any], interrupted: bool) -> None:
        """The texts and counts of Claude Code 2.1.332's terminal results (CHANGELOG.md): the
        SDK raises its ResultError with `errors[]`, so these are what a program sees."""
        subtype = line["subtype"]
        if subtype == "error_max_turns" and self.opts.max_turns is not None:
            # Claude Code counts the turn it refused to start.
            line["num_turns"] = line["num_turns"] + 1
            line["errors"] = [f"Reached maximum number of turns ({self.opts.max_turns})"]
        elif subtype == "error_max_budget_usd" and self.opts.sdk.max_budget_usd is not None:
            line["errors"] = [f"Reached maximum budget (${self.opts.sdk.max_budget_usd:g})"]
        elif interrupted and subtype == "error_during_execution":
            line["result"] = None
            # Claude Code 2.1.332's errors[] for an interrupted turn (recorded against the fake).
            stop = line.get("stop_reason") or "null"
            line["errors"] = [
                f"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason={stop}"
            ]

    def interrupt(self) -> None:
        session = self._session
        if session is not None:
            if self._turn_running:
                self.printer.aborting = True
            session.interrupt()

    def on_event(self, event: EngineEvent) -> None:
        if isinstance(event, PermissionRequested) and self.prompter is not None:
            self.prompter.handle(event.question)
        elif isinstance(event, AssistantMessage) and self.prompter is not None:
            self.prompter.saw_message(event.message)
        self.printer(event)
        budget = self.opts.sdk.max_budget_usd
        session = self._session
        if (
            isinstance(event, UsageUpdated)
            and budget is not None
            and session is not None
            and session.status().cost_usd >= budget
            and not self._budget_hit
        ):
            self._budget_hit = True
            self.printer.note(
                f"lathe: the session cost reached --max-budget-usd {budget:g}; stopping"
            )
            session.interrupt()

    # -- stdin ------------------------------------------------------------------------------------

    async def _one(self) -> None:
        self.inbox.put_nowait(None)

    async def _read(self) -> None:
        try:
            async for number, text in read_lines(sys.stdin):
                await self._dispatch(number, text)
        except OSError as exc:
            self.printer.note(f"lathe: stdin: {exc}; no more input is read")
        finally:
            # Questions still open can never be answered now; the queued turns still run.
            self.channel.close()
            self.inbox.put_nowait(None)

    async def _dispatch(self, number: int, text: str) -> None:
        try:
            message = scrub(json.loads(text))
        except ValueError as exc:
            self.printer.note(f"lathe: stdin line {number} is not JSON ({exc}); ignored")
            return
        except RecursionError:
            # Nested deeper than the parser goes: this line is lost, the ones after it are not.
            self.printer.note(f"lathe: stdin line {number} is nested too deeply; ignored")
            return
        kind = message.get("type") if isinstance(message, Mapping) else None
        if kind == "user":
            prompt = prompt_parts(message.get("message"))
            if prompt is None:
                self.printer.note(
                    f"lathe: stdin line {number}: a user message without text; ignored"
                )
            else:
                self.inbox.put_nowait(prompt)
        elif kind == "control_request":
            await self._control(message)
        elif kind == "control_response":
            response = message.get("response")
            if isinstance(response, Mapping):
                self.channel.resolve(response)
        elif kind == "control_cancel_request":
            task = self._inflight.pop(str(message.get("request_id")), None)
            if task is not None:
                task.cancel()
        elif kind == "update_environment_variables":
            variables = message.get("variables")
            if isinstance(variables, Mapping):
                os.environ.update({str(k): str(v) for k, v in variables.items()})
        elif kind != "keep_alive":
            self.printer.note(f"lathe: stdin line {number}: unknown message type {kind!r}; ignored")

    async def _control(self, message: Mapping[str, Any]) -> None:
        request_id = str(message.get("request_id", ""))
        request = message.get("request")
        subtype = request.get("subtype") if isinstance(request, Mapping) else None
        handler = handlers.HANDLERS.get(str(subtype))
        if handler is None or not isinstance(request, Mapping):
            self.writer.line(
                control_error(
                    request_id,
                    f"Unsupported control request subtype: {subtype}",
                    "unsupported_request",
                )
            )
            return
        if subtype in ("initialize", "interrupt", "set_permission_mode"):
            # In order with the messages around them: hooks before the first turn, a mode
            # before the next prompt.
            await self._answer(request_id, handler, request)
            return
        task = asyncio.create_task(self._answer(request_id, handler, request))
        self._inflight[request_id] = task
        task.add_done_callback(lambda t: self._inflight.pop(request_id, None))

    async def _answer(
        self, request_id: str, handler: handlers.Handler, request: Mapping[str, Any]
    ) -> None:
        try:
            response = await handler(self, request)
        except asyncio.CancelledError:
            raise
        except handlers.RequestFailed as exc:
            self.writer.line(control_error(request_id, str(exc), exc.code))
            return
        except Exception as exc:
            self.writer.line(control_error(request_id, f"{type(exc).__name__}: {exc}"))
            return
        self.writer.line(control_response(request_id, response or {}))

    # -- what handlers and lines read -------------------------------------------------------------

    def install_hooks(self, hooks: Any) -> int:
        controls = self.session.controls
        if self._hooks is None or not controls.runs_hooks:
            return 0
        return self._hooks.install(
            controls, hooks, lambda text: self.printer.note(f"lathe: warning: {text}")
        )

    def define_agents(self, specs: Any) -> None:
        """`--agents` and initialize's `agents`: agent types of the Agent tool."""
        define_agents(
            self.session, specs, lambda text: self.printer.note(f"lathe: warning: {text}")
        )

    def status_changed(self) -> None:
        self.writer.line(
            system_line(
                "status",
                self.session.session_id,
                status=None,
                permissionMode=self.session.permission_mode,
            )
        )

    def slash_commands(self) -> dict[str, str]:
        out = dict(HEADLESS_COMMANDS)
        for command in self.session.custom_commands():
            if not command.refusal:  # a skill only the model may invoke is no command
                out[command.name] = command.help
        return out

    def api_key_source(self) -> str:
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
            if os.environ.get(name):
                return name
        return "none"

    def mcp_servers(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for info in self.session.controls.mcp_servers():
            status = "disabled" if info.name in self.disabled_servers else info.status
            if status == "disconnected":
                status = "failed"
            entry: dict[str, Any] = {"name": info.name, "status": status, "scope": "dynamic"}
            if info.transport == "sdk":
                entry["source"] = "sdk"
            if info.error and status == "failed":
                entry["error"] = info.error
            if status == "connected":
                entry["serverInfo"] = {"name": info.name, "version": ""}
                entry["tools"] = [
                    {"name": t.split("__")[-1], "annotations": {}} for t in info.tools
                ]
            out.append(entry)
        return out

    def init_line(self) -> dict[str, Any]:
        session = self.session
        servers = [
            {
                "name": s["name"],
                "status": s["status"],
                **({"source": "sdk"} if s.get("source") else {}),
            }
            for s in self.mcp_servers()
        ]
        return system_line(
            "init",
            session.session_id,
            cwd=session.status().cwd,
            tools=session.tool_names,
            mcp_servers=servers,
            model=session.model,
            permissionMode=session.permission_mode,
            slash_commands=list(self.slash_commands()),
            apiKeySource=self.api_key_source(),
            claude_code_version=self.protocol_version,
            lathe_version=__version__,
            output_style="default",
            agents=[a.name for a in session.controls.agents()],
            skills=[],
            plugins=[],
        )


# The Messages API blocks a user message may carry besides text: passed on to the model as sent.
PASSED_BLOCKS = ("image", "document")


def prompt_parts(message: Any) -> Prompt | None:
    """A user message's text (a string, or its text blocks joined) and its image and document
    blocks; another kind of block is named in the text."""
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, Mapping) and block.get("type") in PASSED_BLOCKS:
            blocks.append(dict(block))
        elif isinstance(block, Mapping):
            parts.append(f"[a {block.get('type')} block, which lathe cannot pass on yet]")
    if not parts and not blocks:
        return None
    return "\n\n".join(parts), blocks


async def _run(
    session: SessionPort, prompt: str, attachments: list[dict[str, Any]] | None = None
) -> TurnEnded:
    """A prompt, or the slash commands that make sense without a screen (as `lathe -p`)."""
    command, _, arg = prompt.strip().partition(" ")
    if command == "/compact":
        compacted: TurnEnded = await session.compact(arg.strip())
        return compacted
    if command == "/context":
        return TurnEnded(None, "\n".join(session.context_breakdown()), False, "success", 0)
    result: TurnEnded = await session.run_turn(prompt, attachments or ())
    return result
