"""`lathe -p`: run one request to the end, print it, exit.

Output formats follow Claude Code's shapes (CONTRACT.md): `text` prints the final answer,
`json` one result object, `stream-json` one object per line as things happen. Nobody can answer
a permission question here, so every ask becomes a denial that says how to allow it.
Exit codes: 0 success, 1 the run ended in an error, 2 bad usage or configuration, 130 SIGINT.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from typing import IO, Any

from app.cli import CliOptions
from app.engine.events import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    ErrorOccurred,
    Notice,
    RawStreamEvent,
    Retrying,
    ToolResultsMessage,
    TurnEnded,
)


class _Printer:
    def __init__(self, fmt: str, out: IO[str], err: IO[str]) -> None:
        self.fmt = fmt
        self.out = out
        self.err = err
        self.session_id = ""

    def line(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, Retrying):
            print(
                f"lathe: {event.reason}; retrying in {event.delay_s:.1f}s (attempt {event.attempt})",
                file=self.err,
            )
        elif isinstance(event, Notice) and event.level != "info":
            print(f"lathe: {event.text}", file=self.err)
        elif isinstance(event, ErrorOccurred):
            print(f"lathe: {event.message}", file=self.err)
        elif isinstance(event, CompactionFinished):
            print(
                f"lathe: conversation compacted ({event.trigger}): {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens",
                file=self.err,
            )
        if self.fmt != "stream-json":
            return
        if isinstance(event, AssistantMessage):
            self.line(
                {"type": "assistant", "message": dict(event.message), "session_id": self.session_id}
            )
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


def run_headless(opts: CliOptions, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        return asyncio.run(_main(opts, out, err))
    except KeyboardInterrupt:
        return 130


async def _main(opts: CliOptions, out: IO[str], err: IO[str]) -> int:
    from app.engine.setup import SetupError, build_session

    started = time.perf_counter()
    printer = _Printer(opts.output_format, out, err)
    try:
        setup = build_session(opts, interactive=False, sink=printer)
    except SetupError as exc:
        print(f"lathe: {exc}", file=err)
        return 2
    for warning in setup.warnings:
        print(f"lathe: warning: {warning}", file=err)
    session = setup.session
    printer.session_id = session.session_id
    await session.start_mcp()
    if opts.output_format == "stream-json":
        printer.line(
            {
                "type": "system",
                "subtype": "init",
                "session_id": session.session_id,
                "cwd": session.context.cwd,
                "model": session.model,
                "tools": session.tool_names,
                "permissionMode": session.permission_mode,
                "mcp_servers": session.mcp_status(),
            }
        )
    loop = asyncio.get_running_loop()
    sigint = {"hit": False}

    def on_sigint() -> None:
        sigint["hit"] = True
        session.interrupt()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        result = await _run(session, opts.prompt or "")
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
        await session.close()
    obj = result_object(session, result, started, interrupted=sigint["hit"])
    if result.subtype == "error_max_turns":
        # API errors and blocked prompts are told on stderr as they happen; this end is not an
        # event, and in text mode stdout stays empty, so exit 1 would otherwise come unexplained.
        print(f"lathe: {result.result_text}", file=err)
    if opts.output_format == "text":
        if not result.is_error and not sigint["hit"]:
            out.write(result.result_text.rstrip("\n") + "\n")
            out.flush()
    else:
        printer.line(obj)
    if sigint["hit"]:
        return 130
    return 1 if result.is_error else 0


async def _run(session: Any, prompt: str) -> TurnEnded:
    """The prompt, or the slash commands that make sense headless (`/compact [instructions]`
    with --continue, as in Claude Code; `/context`)."""
    command, _, arg = prompt.strip().partition(" ")
    if command == "/compact":
        result: TurnEnded = await session.compact(arg.strip())
        return result
    if command == "/context":
        return TurnEnded(None, "\n".join(session.context_breakdown()), False, "success", 0)
    return await session.run_turn(prompt)  # type: ignore[no-any-return]


def result_object(
    session: Any, result: TurnEnded, started: float, *, interrupted: bool = False
) -> dict[str, Any]:
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
        "session_id": session.session_id,
        "usage": session.usage.totals(),
        "total_cost_usd": round(session.usage.total_cost_usd, 6),
        "permission_denials": [dict(d) for d in result.permission_denials],
    }
