"""Engine events to stream-json lines (the SDK protocol's sink), and the per-turn result line.

Problems meant for a person (retries, warnings, hook messages) go to stderr, as in headless mode;
the SDK passes stderr to the program's `stderr` callback.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import IO, Any

from app.engine.api import (
    AssistantMessage,
    CompactionFinished,
    EngineEvent,
    ErrorOccurred,
    Interrupted,
    ModelUsage,
    Notice,
    RawStreamEvent,
    RequestStarted,
    Retrying,
    SessionPort,
    SubagentMessage,
    ToolResultsMessage,
    TurnEnded,
)
from app.protocol.wire import (
    ApiClock,
    LineWriter,
    assistant_lines,
    new_uuid,
    stream_event_line,
    system_line,
    user_line,
    valid_text,
)

# The SDK asks for `session_state_changed` lines with this variable (it drops the ones marked
# sdk_host_only); they tell it when a run that serves control requests is over.
SESSION_STATE_ENV = "CLAUDE_CODE_SDK_READS_SESSION_STATE"
# Claude Code's (and the engine's) markers of an interrupted turn, in the user lines it writes:
# one after the tool results when the tools were stopped, one when the answer was cut off.
INTERRUPTED_FOR_TOOL_USE = "[Request interrupted by user for tool use]"
INTERRUPTED = "[Request interrupted by user]"


class ProtocolPrinter:
    def __init__(self, writer: LineWriter, err: IO[str], partial: bool) -> None:
        self.writer = writer
        self.err = err
        self.partial = partial
        self.session_id = ""
        self.clock = ApiClock()
        self.interrupted_during_tools: bool | None = None
        # An interrupt was asked for in this turn: an answer cut off by it is marked `aborted`.
        self.aborting = False
        self.report_state = os.environ.get(SESSION_STATE_ENV, "") not in ("", "0")
        # A subagent's lines wait for the line holding its Agent call (see app/headless.py).
        self._printed_tool_uses: set[str] = set()
        self._held: list[SubagentMessage] = []

    def note(self, text: str) -> None:
        try:
            print(valid_text(text), file=self.err, flush=True)
        except (OSError, ValueError):
            pass

    def state(self, state: str) -> None:
        if self.report_state:
            self.writer.line(
                system_line(
                    "session_state_changed", self.session_id, state=state, sdk_host_only=True
                )
            )

    def __call__(self, event: EngineEvent) -> None:
        sid = self.session_id
        if isinstance(event, Retrying):
            self.note(
                f"lathe: {event.reason}; retrying in {event.delay_s:.1f}s (attempt {event.attempt})"
            )
        elif isinstance(event, Notice) and event.level != "info":
            self.note(f"lathe: {event.text}")
        elif isinstance(event, ErrorOccurred):
            self.note(f"lathe: {event.message}")
        elif isinstance(event, RequestStarted):
            self.clock.request_started()
            self.writer.line(system_line("status", sid, status="requesting"))
        elif isinstance(event, AssistantMessage):
            self.clock.request_ended()
            # Cut off by the interrupt (no stop reason ever came): Claude Code marks its lines.
            cut = self.aborting and event.message.get("stop_reason") is None
            for line in assistant_lines(event.message, sid):
                if cut:
                    line["aborted"] = True
                self.writer.line(line)
            for block in event.message.get("content", []):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self._printed_tool_uses.add(str(block.get("id", "")))
            self.flush_subagents(only_printed=True)
        elif isinstance(event, SubagentMessage):
            self._held.append(event)
            self.flush_subagents(only_printed=True)
        elif isinstance(event, ToolResultsMessage):
            self.tool_results(event.message)
        elif isinstance(event, Interrupted):
            self.interrupted_during_tools = event.during_tools
            if not event.during_tools:
                self.writer.line(user_line(_text_message(INTERRUPTED), sid))
        elif isinstance(event, CompactionFinished):
            self.writer.line(
                system_line(
                    "compact_boundary",
                    sid,
                    compact_metadata={
                        "trigger": event.trigger or "auto",
                        "pre_tokens": event.tokens_before,
                    },
                )
            )
        elif isinstance(event, RawStreamEvent) and self.partial:
            self.writer.line(stream_event_line(event.event, sid))

    def tool_results(self, message: Mapping[str, Any]) -> None:
        """The results' user line; an interrupt's marker after them is a user line of its own,
        as Claude Code writes it (the model gets both in one message)."""
        content = list(message.get("content") or [])
        last = content[-1] if content else None
        if isinstance(last, dict) and last.get("text") == INTERRUPTED_FOR_TOOL_USE:
            self.writer.line(user_line({**message, "content": content[:-1]}, self.session_id))
            self.writer.line(user_line(_text_message(INTERRUPTED_FOR_TOOL_USE), self.session_id))
            return
        self.writer.line(user_line(message, self.session_id))

    def flush_subagents(self, *, only_printed: bool = False) -> None:
        """A subagent's messages with `parent_tool_use_id` set to its Agent call's id, printed
        once that call's line is out (or all of them, at the end of a turn)."""
        keep: list[SubagentMessage] = []
        for event in self._held:
            if only_printed and event.parent_tool_use_id not in self._printed_tool_uses:
                keep.append(event)
                continue
            parent = event.parent_tool_use_id
            if event.message.get("role") == "assistant":
                for line in assistant_lines(event.message, self.session_id, parent):
                    self.writer.line(line)
            else:
                self.writer.line(user_line(event.message, self.session_id, parent))
        self._held = keep


def _text_message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


class TurnMeter:
    """Per turn: wall time and the usage added during it (Claude Code's result `usage` is the
    turn's; `modelUsage` and `total_cost_usd` are the session's)."""

    def __init__(self, session: SessionPort) -> None:
        self.session = session
        self.started = time.perf_counter()
        self.before = dict(session.status().usage)

    def usage(self) -> dict[str, int]:
        now = self.session.status().usage
        return {k: int(v) - int(self.before.get(k, 0)) for k, v in now.items()}

    def elapsed_ms(self) -> int:
        return int((time.perf_counter() - self.started) * 1000)


def result_line(
    session: SessionPort,
    result: TurnEnded,
    meter: TurnMeter,
    printer: ProtocolPrinter,
    *,
    interrupted: bool = False,
    subtype_override: str | None = None,
    errors: list[str] | None = None,
) -> dict[str, Any]:
    subtype: str = result.subtype
    is_error = result.is_error
    terminal = "completed"
    if subtype == "interrupted" or interrupted:
        subtype, is_error = "error_during_execution", True
        terminal = "aborted_tools" if printer.interrupted_during_tools else "aborted_streaming"
    elif subtype == "error_max_turns":
        terminal = "max_turns"
    elif is_error:
        terminal = "model_error"
    if subtype_override:
        subtype, is_error, terminal = (
            subtype_override,
            True,
            subtype_override.removeprefix("error_"),
        )
    line: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": meter.elapsed_ms(),
        "duration_api_ms": printer.clock.total_ms,
        "num_turns": result.num_turns,
        "result": result.result_text,
        "stop_reason": result.stop_reason,
        "session_id": session.session_id,
        "total_cost_usd": round(session.status().cost_usd, 6),
        "usage": meter.usage(),
        "modelUsage": model_usage(session),
        "permission_denials": [dict(d) for d in result.permission_denials],
        "terminal_reason": terminal,
        "uuid": new_uuid(),
    }
    if is_error and subtype != "success":
        line["errors"] = list(errors) if errors else [result.result_text or subtype]
    return line


def model_usage(session: SessionPort) -> dict[str, Any]:
    """`modelUsage`: per model, cumulative over the session, in Claude Code's camelCase."""
    controls = session.controls
    window, max_out = controls.context_window(), controls.max_output_tokens

    def entry(m: ModelUsage) -> dict[str, Any]:
        return {
            "inputTokens": m.input_tokens,
            "outputTokens": m.output_tokens,
            "cacheReadInputTokens": m.cache_read_input_tokens,
            "cacheCreationInputTokens": m.cache_creation_input_tokens,
            "webSearchRequests": 0,
            "costUSD": round(m.cost_usd, 6),
            "contextWindow": window,
            "maxOutputTokens": max_out,
        }

    return {name: entry(m) for name, m in controls.usage_by_model().items()}


def setup_error_line(text: str) -> dict[str, Any]:
    """The result line of a session that never started (an unknown --resume id, bad settings):
    Claude Code writes one so the SDK raises its ResultError with the reason."""
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "stop_reason": None,
        "session_id": new_uuid(),
        "total_cost_usd": 0,
        "usage": {
            "input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 0,
        },
        "modelUsage": {},
        "permission_denials": [],
        "errors": [text],
        "uuid": new_uuid(),
    }
