"""One user turn: request, stream, run tools mid-stream, send results back, until the model stops.

- Each tool_use block goes to the executor the moment its `content_block_stop` arrives; completed
  results are collected after every stream event; after the stream, the rest. All tool_results go
  back in one user message, in tool_use order, before any other block.
- A stream that breaks (dropped, stalled, malformed) before any tool_use block completed is retried
  with `discard()`. One that breaks after is kept up to its last complete block, its tools' real
  results are sent and the conversation continues from there (partial.py): no tool that ran runs
  again unless the model asks again, and every tool that ran has its result in the transcript.
- An interrupt closes the HTTP stream, aborts every tool, synthesises the missing results and
  appends the interrupt text, so the next request is valid.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.events import (
    AssistantMessage,
    AttemptAbandoned,
    ErrorOccurred,
    Interrupted,
    Notice,
    QueuedPromptsDelivered,
    RawStreamEvent,
    RedactedThinking,
    RequestStarted,
    Retrying,
    StreamUsage,
    TextDelta,
    ThinkingDelta,
    ToolResultsMessage,
    TurnEnded,
    TurnStarted,
    UsageUpdated,
)
from app.engine.long_session import TurnGuard
from app.engine.normalize import normalize_for_api
from app.engine.partial import BrokenStream, continuing_reason, kept_message, kept_notice
from app.engine.prompt_verdict import prompt_verdict
from app.engine.result_views import denied_label
from app.engine.retry import ErrorInfo, backoff_delay, classify, max_retries
from app.engine.stream import StreamAccumulator
from app.engine.stream_guard import feed, guarded_events, idle_timeout_s, open_stream
from app.execution.outcome import CallOutcome, ends_turn
from app.execution.streaming_executor import StreamingToolExecutor
from app.execution.texts import INTERRUPTED, INTERRUPTED_FOR_TOOL_USE, invalid_json
from app.mcp.deferred import deferred_tools_text, loaded_tool_names, split_deferred
from app.model.request import build_request
from tools.abort import AbortController

if TYPE_CHECKING:
    from app.engine.session import Session
    from app.hooks.results import PromptHookResult


@dataclass
class ResponseOutcome:
    """One model response and what its tools produced."""

    message: dict[str, Any]
    stop_reason: str | None
    results: list[CallOutcome] = field(default_factory=list)
    interrupted: bool = False
    error: str | None = None
    # Set when the stream broke after tools were complete: the next request continues from here.
    broken: BrokenStream | None = None


class _StreamCancelled(Exception):
    pass


async def run_turn(
    session: Session,
    prompt: str,
    abort: AbortController,
    content: list[dict[str, Any]] | None = None,
    verdict: PromptHookResult | None = None,
) -> TurnEnded:
    """`content`: the prompt's blocks when it was expanded (a custom command, `@file`s);
    `verdict`: the UserPromptSubmit hooks' answer when the caller already asked them (before a
    command's `!` lines ran: prompt_verdict)."""
    started = time.perf_counter()
    session.emit(TurnStarted(prompt))
    content = list(content) if content else [{"type": "text", "text": prompt}]
    # Background agents that ended since the last request (run_notification_turn took its own).
    content.extend({"type": "text", "text": t} for t in session.take_notifications())
    for extra in session.take_pending_context():
        content.append({"type": "text", "text": f"<system-reminder>\n{extra}\n</system-reminder>"})
    hooks = session.parts.session_hooks
    if verdict is None:
        verdict = await prompt_verdict(session, prompt, abort)
    if verdict is not None:
        _notices(session, verdict.messages)
        if verdict.blocked:
            reason = verdict.reason or "blocked by a UserPromptSubmit hook"
            session.emit(Notice(f"Prompt blocked: {reason}", "warning"))
            # Not an error: Claude Code 2.1.332 ends `-p` with exit 0, subtype success and its
            # block text as the result (measured, ext-r3 F5); the prompt never reaches the model.
            said = verdict.result_text or reason
            return _end(session, None, said, False, "success", 0, [], started, {"blocked": reason})
        for extra in verdict.additional_context:
            content.append(
                {"type": "text", "text": f"<system-reminder>\n{extra}\n</system-reminder>"}
            )
    session.append({"role": "user", "content": content})
    num_turns = 0
    denials: list[dict[str, Any]] = []
    stop_hook_active = False
    stop_continuations = 0
    guard = TurnGuard(session)  # context: clear old results, compact, recover an overflow
    broken: BrokenStream | None = None
    while True:
        if abort.signal.aborted:
            session.append({"role": "user", "content": [{"type": "text", "text": INTERRUPTED}]})
            session.emit(Interrupted(during_tools=False))
            return _end(session, None, "", False, "interrupted", num_turns, denials, started)
        num_turns += 1
        await guard.before_request(abort)
        response = await _respond(session, abort, num_turns, broken)
        broken = response.broken
        # A response kept after a break has results to record first: it is never sent again.
        if (
            response.error is not None
            and not response.results
            and await guard.recover(response.error, abort)
        ):
            num_turns -= 1
            continue
        guard.after_response(response)
        tool_uses = [b for b in response.message["content"] if b.get("type") == "tool_use"]
        denied = next((r for r in response.results if ends_turn(r.decision)), None)
        denials.extend(r.permission_denial for r in response.results if r.permission_denial)
        for r in response.results:
            _notices(session, r.notices)
        if tool_uses:
            user_content = [r.result_block for r in response.results]
            for r in response.results:
                user_content.extend(r.extra_content)
            nested = session.parts.nested_memory
            if nested is not None:  # subfolder CLAUDE.md and `paths:` rules (app/memory/nested.py)
                user_content.extend(nested.reminder_blocks(tool_uses, session.deps.find))
            if response.interrupted or denied is not None:
                # A deny that ends the turn reads to the model as Claude Code's does: an
                # interrupt for tool use (the prompts typed meanwhile wait for the next turn).
                user_content.append({"type": "text", "text": INTERRUPTED_FOR_TOOL_USE})
            elif response.error is None:
                queued = session.take_queued_prompts()
                user_content.extend({"type": "text", "text": q} for q in queued)
                user_content.extend(
                    {"type": "text", "text": t} for t in session.take_notifications()
                )
                if queued:
                    session.emit(QueuedPromptsDelivered(tuple(queued)))
            if hooks is not None and response.results and not response.interrupted:
                # Once per batch, after every call of it (Claude Code 2.1.332's PostToolBatch).
                batch = await hooks.post_tool_batch(
                    [
                        {
                            "tool_name": r.tool_name,
                            "tool_input": r.input,
                            "tool_use_id": r.tool_use_id,
                            "tool_response": r.result_block.get("content", ""),
                        }
                        for r in response.results
                    ],
                    session.context,
                )
                _notices(session, batch.messages)
                user_content.extend(
                    {"type": "text", "text": f"<system-reminder>\n{extra}\n</system-reminder>"}
                    for extra in batch.additional_context
                )
            results_message = {"role": "user", "content": user_content}
            session.append(results_message, response.results)
            session.emit(ToolResultsMessage(results_message))
        if response.error is not None and not response.interrupted:
            # Tools of a response that broke for good still had their results recorded above.
            error = guard.error_words(response.error)
            session.emit(ErrorOccurred(error))
            return _end(
                session,
                None,
                error,
                True,
                "error_during_execution",
                num_turns,
                denials,
                started,
            )
        if response.interrupted or denied is not None:
            if response.interrupted:
                if not tool_uses:
                    text = {"type": "text", "text": INTERRUPTED}
                    session.append({"role": "user", "content": [text]})
                session.emit(Interrupted(during_tools=bool(tool_uses)))
            elif denied is not None:  # the user's deny ended the turn
                label = denied_label(session.deps.find, denied)
                session.emit(Interrupted(during_tools=True, denied=label))
            return _end(
                session,
                response.stop_reason,
                _text_of(response.message),
                False,
                "interrupted",
                num_turns,
                denials,
                started,
            )
        prevent = next(
            (r.prevent_continuation for r in response.results if r.prevent_continuation), None
        )
        if prevent is not None:
            session.emit(Notice(f"Stopped by a hook: {prevent}", "warning"))
            return _end(
                session, "hook_stopped", prevent, False, "success", num_turns, denials, started
            )
        if tool_uses:
            if session.parts.max_turns is not None and num_turns >= session.parts.max_turns:
                return _end(
                    session,
                    response.stop_reason,
                    f"Reached the maximum number of turns ({session.parts.max_turns})",
                    True,
                    "error_max_turns",
                    num_turns,
                    denials,
                    started,
                )
            continue
        if response.stop_reason == "pause_turn":
            # The server paused a long turn: send the conversation back as it is to continue.
            if session.parts.max_turns is not None and num_turns >= session.parts.max_turns:
                return _end(
                    session,
                    response.stop_reason,
                    _text_of(response.message),
                    True,
                    "error_max_turns",
                    num_turns,
                    denials,
                    started,
                )
            session.append({"role": "user", "content": [{"type": "text", "text": "Continue."}]})
            continue
        if response.stop_reason == "max_tokens":
            session.emit(
                Notice("The response hit the output token limit and was cut short.", "warning")
            )
        elif response.stop_reason == "refusal":
            session.emit(Notice("The model declined to continue this request.", "warning"))
        if hooks is not None:
            stopped = await hooks.stop(
                stop_hook_active, session.context, _text_of(response.message)
            )
            _notices(session, stopped.messages)
            if stopped.prevent_continuation is None and stopped.should_continue:
                # Every block is honoured, as in Claude Code ("keep going until done" hooks rely
                # on it); from the second Stop on, `stop_hook_active` tells the hook it is in
                # such a loop, and a cap keeps a hook that always blocks from looping forever.
                if stop_continuations >= max_stop_continuations():
                    session.emit(
                        Notice(
                            f"Stop hooks blocked the end of this turn {stop_continuations} "
                            "times; lathe ends it (LATHE_MAX_STOP_HOOK_CONTINUATIONS).",
                            "warning",
                        )
                    )
                    return _end(
                        session,
                        response.stop_reason,
                        _text_of(response.message),
                        False,
                        "success",
                        num_turns,
                        denials,
                        started,
                    )
                stop_continuations += 1
                stop_hook_active = True
                reason = stopped.reason or "A Stop hook asked to continue."
                session.append(
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": f"Stop hook feedback:\n{reason}"}],
                    }
                )
                continue
        return _end(
            session,
            response.stop_reason,
            _text_of(response.message),
            False,
            "success",
            num_turns,
            denials,
            started,
        )


def max_stop_continuations() -> int:
    """How often Stop hooks may keep one turn going (Claude Code, measured: 9)."""
    try:
        value = int(os.environ.get("LATHE_MAX_STOP_HOOK_CONTINUATIONS", "") or 9)
    except ValueError:
        return 9
    return max(0, value)


def _notices(session: Session, messages: Any) -> None:
    for message in messages:
        session.emit(Notice(message.text, message.level))


def _text_of(message: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in message.get("content", []) if b.get("type") == "text")


def _end(
    session: Session,
    stop_reason: str | None,
    text: str,
    is_error: bool,
    subtype: Any,
    num_turns: int,
    denials: list[dict[str, Any]],
    started: float,
    extra: dict[str, Any] | None = None,
) -> TurnEnded:
    info = {"duration_ms": int((time.perf_counter() - started) * 1000), **(extra or {})}
    # Calls denied inside this turn's subagents are this turn's denials too (as Claude Code
    # lists them in the result's permission_denials).
    if session.context.subagents is not None:
        denials = [*denials, *(dict(d) for d in session.context.subagents.take_denials())]
    event = TurnEnded(stop_reason, text, is_error, subtype, num_turns, tuple(denials), info)
    session.emit(event)
    return event


def _fall_back(session: Session, info: ErrorInfo) -> bool:
    fallback = session.parts.fallback_model
    overloaded = info.status == 529 or "overloaded" in info.message.lower()
    if not isinstance(fallback, str) or not fallback or not overloaded:
        return False
    if session.backend.model == fallback:
        return False
    session.emit(
        Notice(f"{session.backend.model} is overloaded; switching to {fallback}", "warning")
    )
    session.set_model(fallback)
    return True


async def _respond(
    session: Session, abort: AbortController, turn: int, after: BrokenStream | None = None
) -> ResponseOutcome:
    """One model response with its tools, retrying transient failures. `after`: the previous
    response broke after its tools and was kept; this one continues it, on the same retry budget."""
    attempts = max_retries() + 1
    last_error = ""
    first = 0
    if after is not None:
        first = after.attempts_used
        delay = backoff_delay(first - 1, None)
        session.emit(Retrying(first, delay, continuing_reason(after.reason)))
        if await _sleep_or_abort(delay, abort):
            return ResponseOutcome({"role": "assistant", "content": []}, None, interrupted=True)
    for attempt in range(first, attempts):
        if abort.signal.aborted:
            return ResponseOutcome({"role": "assistant", "content": []}, None, interrupted=True)
        executor = StreamingToolExecutor(session.deps, session.context, abort.signal, session.emit)
        session.executor = executor
        acc = StreamAccumulator()
        results: list[CallOutcome] = []
        try:
            outcome = await _stream_once(session, acc, executor, abort, turn, results)
        except _StreamCancelled:
            return await _finish_interrupted(session, acc, executor, results)
        except Exception as exc:  # classified below: retry, or end the turn with a clear message
            info = classify(exc)
            # Only a stream that broke: after message_stop the failure is lathe's own (the
            # transcript write), and the response it could not record is not kept either.
            kept = None if acc.finished else kept_message(acc, {t.id for t in executor.tools})
            if kept is not None:
                # Tools already started: keep them and their real results, do not ask again.
                return await _finish_broken(
                    session, abort, acc, executor, results, kept, info, attempt + 1, attempts
                )
            executor.discard()
            await executor.wait_all()
            _count_usage(session, acc)
            last_error = info.message
            # Nothing of this attempt is kept: a front end takes back what it streamed.
            if not info.retryable or attempt + 1 >= attempts:
                if _fall_back(session, info):
                    # --fallback-model: an overloaded model gives way, once, with fresh retries.
                    session.emit(AttemptAbandoned(attempt + 1, info.message, True))
                    return await _respond(session, abort, turn)
                session.emit(AttemptAbandoned(attempt + 1, info.message, False))
                if info.retryable:
                    last_error = f"{info.message} (gave up after {attempts} attempts)"
                return ResponseOutcome({"role": "assistant", "content": []}, None, error=last_error)
            session.emit(AttemptAbandoned(attempt + 1, info.message, True))
            delay = backoff_delay(attempt, info.retry_after)
            session.emit(Retrying(attempt + 1, delay, info.message))
            if await _sleep_or_abort(delay, abort):
                return ResponseOutcome({"role": "assistant", "content": []}, None, interrupted=True)
            continue
        session.context = executor.context
        return outcome
    return ResponseOutcome(
        {"role": "assistant", "content": []}, None, error=last_error or "no response"
    )


async def _finish_broken(
    session: Session,
    abort: AbortController,
    acc: StreamAccumulator,
    executor: StreamingToolExecutor,
    results: list[CallOutcome],
    message: dict[str, Any],
    info: ErrorInfo,
    attempts_used: int,
    attempts: int,
) -> ResponseOutcome:
    """The stream broke after some tool_use blocks were complete: record the complete part, wait
    for those tools' real results (queued ones still run: the model asked for them), and say
    whether the conversation goes on from here or ends with the error."""
    _record_assistant(session, message)
    session.emit(Notice(kept_notice(message, info.message), "warning"))
    await _drain(executor, results)
    _count_usage(session, acc)
    session.context = executor.context
    outcome = ResponseOutcome(message, None, results, interrupted=abort.signal.aborted)
    if not info.retryable:
        outcome.error = info.message
    elif attempts_used >= attempts:
        outcome.error = f"{info.message} (gave up after {attempts} attempts)"
    else:
        outcome.broken = BrokenStream(attempts_used, info.message)
    return outcome


async def _sleep_or_abort(delay: float, abort: AbortController) -> bool:
    if delay <= 0:
        return abort.signal.aborted
    try:
        await asyncio.wait_for(abort.signal.wait(), delay)
        return True
    except TimeoutError:
        return False


async def _stream_once(
    session: Session,
    acc: StreamAccumulator,
    executor: StreamingToolExecutor,
    abort: AbortController,
    turn: int,
    results: list[CallOutcome],
) -> ResponseOutcome:
    # Deferred tools (many MCP tools) go by name only; ToolSearch loads their schemas.
    split = split_deferred(session.pool.tools, loaded=loaded_tool_names(session.messages))
    session.deps.schema_sent = split.schema_sent
    system = session.parts.system
    if split.deferred:
        system = [*system, {"type": "text", "text": deferred_tools_text(split.deferred)}]
    last_builtin = session.pool.builtin_breakpoint
    params = build_request(
        model=session.backend.model,
        system=system,
        tools=split.sent,
        last_builtin=last_builtin if last_builtin >= 0 else None,
        messages=normalize_for_api(session.messages),
        max_tokens=session.parts.max_tokens,
        # Request parameters a front end's flags ask for (--max-thinking-tokens).
        extra=session.parts.request_extra,
    )
    session.emit(RequestStarted(turn, session.backend.model))
    partial = session.parts.include_partial_messages
    consumer = asyncio.ensure_future(_consume(session, params, acc, executor, results, partial))

    def stop_stream() -> None:
        consumer.cancel()

    remove = abort.signal.add_listener(stop_stream)
    try:
        await consumer
    except asyncio.CancelledError:
        if abort.signal.aborted:
            raise _StreamCancelled() from None
        raise
    finally:
        remove()
    if not acc.finished:
        raise ConnectionError("the stream ended before message_stop")
    # The message is complete: it goes to the transcript now, before its tools finish, so a crash
    # while they run leaves a transcript that --resume can repair.
    message = acc.message()
    _record_assistant(session, message)
    # The stream is over: wait for the tools still running, in order.
    await _drain(executor, results)
    _count_usage(session, acc)
    interrupted = abort.signal.aborted
    return ResponseOutcome(message, acc.stop_reason, results, interrupted=interrupted)


def _count_usage(session: Session, acc: StreamAccumulator) -> None:
    """Add a response's usage to the totals. Also called for a response cut by an interrupt or a
    broken stream: once message_start arrived, its input tokens were billed, and /cost and the
    result's usage must say so."""
    if not acc.started:
        return
    session.usage.add(acc.model or session.backend.model, acc.usage)
    totals = session.usage.totals()
    session.emit(
        UsageUpdated(
            totals["input_tokens"],
            totals["output_tokens"],
            totals["cache_read_input_tokens"],
            totals["cache_creation_input_tokens"],
            session.usage.total_cost_usd,
        )
    )


def _stream_usage(usage: dict[str, int]) -> StreamUsage:
    prompt = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return StreamUsage(sum(usage.get(k, 0) for k in prompt), usage.get("output_tokens", 0))


async def _drain(executor: StreamingToolExecutor, results: list[CallOutcome]) -> None:
    async for outcome in executor.get_remaining_results():
        results.append(outcome)


async def _consume(
    session: Session,
    params: dict[str, Any],
    acc: StreamAccumulator,
    executor: StreamingToolExecutor,
    results: list[CallOutcome],
    partial: bool,
) -> None:
    idle = idle_timeout_s()
    stream = await open_stream(session.backend.client, params, idle)
    try:
        async for event in guarded_events(stream, idle):
            if partial:
                session.emit(RawStreamEvent(event.model_dump(mode="json", exclude_none=True)))
            update = feed(acc, event)
            if event.type in ("message_start", "message_delta"):
                session.emit(_stream_usage(acc.usage))
            if update is not None:
                for index, text in update.text:
                    session.emit(TextDelta(text, index))
                for index, text in update.thinking:
                    session.emit(ThinkingDelta(text, index))
                for index in update.redacted:
                    session.emit(RedactedThinking(index))
                for done in update.tools:
                    preset = (
                        invalid_json(done.invalid_raw) if done.invalid_raw is not None else None
                    )
                    executor.add_tool(done.block, acc.message(partial=True), preset_content=preset)
                if update.tools:
                    # Let the tool task start now: a fast stream would otherwise keep the loop
                    # busy with buffered events and delay the tool until the stream pauses.
                    await asyncio.sleep(0)
            results.extend(executor.get_completed_results())
    finally:
        await stream.close()


async def _finish_interrupted(
    session: Session,
    acc: StreamAccumulator,
    executor: StreamingToolExecutor,
    results: list[CallOutcome],
) -> ResponseOutcome:
    """The user interrupted mid-stream: keep what was said, give every started tool its result."""
    await _drain(executor, results)
    _count_usage(session, acc)
    session.context = executor.context
    message = acc.message(partial=True)
    # Only tool_use blocks the executor knows about stay: each has exactly one result.
    known = {r.tool_use_id for r in results}
    message["content"] = [
        b for b in message["content"] if b.get("type") != "tool_use" or b.get("id") in known
    ]
    _record_assistant(session, message)
    return ResponseOutcome(message, None, results, interrupted=True)


def _record_assistant(session: Session, message: dict[str, Any]) -> None:
    if message["content"]:
        session.append(message)
        session.emit(AssistantMessage(message))
