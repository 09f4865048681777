"""`lathe -p`: run one request to the end, print it, exit.

Output formats follow Claude Code's shapes (CONTRACT.md): `text` prints the final answer,
`json` one result object, `stream-json` one object per line as things happen. Nobody can answer
a permission question here, so every ask becomes a denial that says how to allow it.
Exit codes: 0 success, 1 the run ended in an error, 2 bad usage or configuration, and 128 + the
signal's number after SIGINT (130), SIGHUP (129) or SIGTERM (143), each of which interrupts the
turn as Ctrl+C does, so the transcript stays valid for `--continue` (app/exit_signals.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from app.engine.api import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    ErrorOccurred,
    EventSink,
    Notice,
    RawStreamEvent,
    Retrying,
    SessionPort,
    SetupError,
    SubagentMessage,
    ToolResultsMessage,
    TurnEnded,
)
from app.exit_signals import EXIT_SIGNALS, ExitSignals, exit_code, install, silence_stdio


class _Printer:
    def __init__(self, fmt: str, out: IO[str], err: IO[str]) -> None:
        self.fmt = fmt
        self.out = out
        self.err = err
        self.session_id = ""
        self.gone = False
        # A subagent starts when its Agent tool_use block completes, before the assistant
        # message holding it is whole and printed: its lines wait for that message's line.
        self._printed_tool_uses: set[str] = set()
        self._held: list[SubagentMessage] = []

    def line(self, obj: dict[str, Any]) -> None:
        self.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")

    def write(self, text: str) -> None:
        """Write to stdout; a reader or terminal that went away (EPIPE, EIO after SIGHUP) ends
        the output, not the run: the turn still stops cleanly and the transcript is kept."""
        if self.gone:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            self.gone = True
            silence_stdio()

    def note(self, text: str) -> None:
        try:
            print(text, file=self.err)
        except (OSError, ValueError):
            self.gone = True
            silence_stdio()

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, Retrying):
            self.note(
                f"lathe: {event.reason}; retrying in {event.delay_s:.1f}s (attempt {event.attempt})"
            )
        elif isinstance(event, Notice) and event.level != "info":
            self.note(f"lathe: {event.text}")
        elif isinstance(event, ErrorOccurred):
            self.note(f"lathe: {event.message}")
        elif isinstance(event, CompactionFinished):
            self.note(
                f"lathe: conversation compacted ({event.trigger}): {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens"
            )
        if self.fmt != "stream-json":
            return
        if isinstance(event, AssistantMessage):
            self.line(
                {"type": "assistant", "message": dict(event.message), "session_id": self.session_id}
            )
            for block in event.message.get("content", []):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self._printed_tool_uses.add(str(block.get("id", "")))
            self.flush_subagents(only_printed=True)
        elif isinstance(event, SubagentMessage):
            self._held.append(event)
            self.flush_subagents(only_printed=True)
        elif isinstance(event, ToolResultsMessage):
            self.line(
                {"type": "user", "message": dict(event.message), "session_id": self.session_id}
            )
        elif isinstance(event, CompactionFinished):
            # Claude Code's boundary line in the stream.
            self.line(
                {
                    "type": "system",
                    "subtype": "compact_boundary",
                    "session_id": self.session_id,
                    "compact_metadata": {
                        "trigger": event.trigger,
                        "pre_tokens": event.tokens_before,
                    },
                }
            )
        elif isinstance(event, RawStreamEvent):
            self.line(
                {"type": "stream_event", "event": dict(event.event), "session_id": self.session_id}
            )

    def flush_subagents(self, *, only_printed: bool = False) -> None:
        """Print held subagent messages (those whose Agent call is printed, or all), in order:
        each nested under the Agent call that started it (Claude Code's `parent_tool_use_id`,
        with the agent's id beside it)."""
        keep: list[SubagentMessage] = []
        for event in self._held:
            if only_printed and event.parent_tool_use_id not in self._printed_tool_uses:
                keep.append(event)
                continue
            role = event.message.get("role")
            self.line(
                {
                    "type": "assistant" if role == "assistant" else "user",
                    "message": dict(event.message),
                    "parent_tool_use_id": event.parent_tool_use_id,
                    "agent_id": event.agent_id,
                    "session_id": self.session_id,
                }
            )
        self._held = keep


@dataclass(frozen=True)
class HeadlessRun:
    """What `-p` was asked: the prompt and the output format."""

    prompt: str
    output_format: str = "text"


# Builds the session with its events going to the sink; returns it and the setup's warnings.
# Raises SetupError when the session cannot start (exit 2).
SessionBuilder = Callable[[EventSink], tuple[SessionPort, list[str]]]


def run_headless(
    opts: HeadlessRun,
    build: SessionBuilder,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        return asyncio.run(_main(opts, build, out, err))
    except KeyboardInterrupt:
        return 130


async def _main(opts: HeadlessRun, build: SessionBuilder, out: IO[str], err: IO[str]) -> int:
    started = time.perf_counter()
    printer = _Printer(opts.output_format, out, err)
    loop = asyncio.get_running_loop()
    holder: dict[str, SessionPort] = {}

    def first_signal(sig: int) -> None:
        session = holder.get("session")
        if session is not None:
            session.interrupt()

    # Installed before anything starts: a signal during setup or SessionStart hooks is not lost.
    signals = ExitSignals(first_signal)
    install(loop.add_signal_handler, signals)
    try:
        session, warnings = build(printer)
    except SetupError as exc:
        print(f"lathe: {exc}", file=err)
        return 2
    for warning in warnings:
        print(f"lathe: warning: {warning}", file=err)
    holder["session"] = session
    printer.session_id = session.session_id
    await session.start_mcp()
    if opts.output_format == "stream-json":
        status = session.status()
        printer.line(
            {
                "type": "system",
                "subtype": "init",
                "session_id": status.session_id,
                "cwd": status.cwd,
                "model": status.model,
                "tools": list(status.tools),
                "permissionMode": status.permission_mode,
                "mcp_servers": session.mcp_status(),
            }
        )
    try:
        if signals.received is None:
            result = await _run(session, opts.prompt or "")
            result = await _background_turns(session, result, printer, opts, signals, started)
        else:  # a signal while MCP servers started: the model is never asked
            result = TurnEnded(None, "", True, "interrupted", 0)
    finally:
        await session.close("other")  # Claude Code 2.1.332 ends -p with SessionEnd reason "other"
        signals.cancel_deadline()
        for sig in EXIT_SIGNALS:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError):
                pass
    printer.flush_subagents()  # an Agent call whose message never completed (an interrupt)
    stopped = signals.received is not None
    lost = _transcript_loss(session)
    if lost is not None and not result.is_error:
        # The work happened but a --continue would not see it: that is no success.
        result = dataclasses.replace(
            result, result_text=lost, is_error=True, subtype="error_during_execution"
        )
    obj = result_object(session, result, started, interrupted=stopped)
    if stopped and signals.received != signal.SIGINT:
        obj["result"] = obj["result"] if result.result_text else f"Stopped by {signals.name}"
    if result.is_error and not stopped and (opts.prompt or "").strip().startswith("/compact"):
        # A compaction that failed (a refusal, no summary) is no event either: say why.
        printer.note(f"lathe: {result.result_text or 'compaction failed'}")
    if result.subtype == "error_max_turns":
        # API errors and blocked prompts are told on stderr as they happen; this end is not an
        # event, and in text mode stdout stays empty, so exit 1 would otherwise come unexplained.
        printer.note(f"lathe: {result.result_text}")
    if lost is not None:
        printer.note(f"lathe: {lost}")
    elif stopped and signals.received != signal.SIGINT:
        printer.note(f"lathe: stopped by {signals.name}; the conversation is saved (--continue)")
    if opts.output_format == "text":
        if not result.is_error and not stopped:
            printer.write(result.result_text.rstrip("\n") + "\n")
    else:
        printer.line(obj)
    if signals.received is not None:
        return exit_code(signals.received)
    return 1 if result.is_error else 0


def _transcript_loss(session: SessionPort) -> str | None:
    """The error to end with when transcript lines could not be written, else None."""
    status = session.status()
    if not status.transcript_lost:
        return None
    return (
        f"{status.transcript_loss}; {status.transcript_lost} transcript line(s) not saved, so "
        "--continue would not see this run's work"
    )


async def _run(session: SessionPort, prompt: str) -> TurnEnded:
    """The prompt, or the slash commands that make sense headless (`/compact [instructions]`
    with --continue, as in Claude Code; `/context`)."""
    command, _, arg = prompt.strip().partition(" ")
    if command == "/compact":
        return await session.compact(arg.strip())
    if command == "/context":
        return TurnEnded(None, "\n".join(session.context_breakdown()), False, "success", 0)
    return await session.run_turn(prompt)


async def _background_turns(
    session: SessionPort,
    result: TurnEnded,
    printer: _Printer,
    opts: HeadlessRun,
    signals: ExitSignals,
    started: float,
) -> TurnEnded:
    """Agents the model started in the background still run when its turn ends: wait for them,
    and give each notification a turn of its own, as Claude Code's -p does (stream-json prints
    a result line per turn; the exit status and the other formats follow the last turn)."""
    while signals.received is None:
        if session.pending_notifications:
            if opts.output_format == "stream-json":
                printer.flush_subagents()
                printer.line(result_object(session, result, started))
            result = await session.run_notification_turn()
            continue
        if not session.background_agents_running():
            break
        await session.wait_for_notification(0.25)
    return result


def result_object(
    session: SessionPort, result: TurnEnded, started: float, *, interrupted: bool = False
) -> dict[str, Any]:
    status = session.status()
    subtype = result.subtype
    is_error = result.is_error
    if subtype == "interrupted" or interrupted:
        subtype, is_error = "error_during_execution", True
    text = (
        result.result_text if not interrupted else (result.result_text or "Interrupted by the user")
    )
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "result": text,
        "num_turns": result.num_turns,
        "duration_ms": int((time.perf_counter() - started) * 1000),
        "session_id": status.session_id,
        "usage": dict(status.usage),
        "total_cost_usd": round(status.cost_usd, 6),
        "permission_denials": [dict(d) for d in result.permission_denials],
    }
