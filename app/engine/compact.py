"""Compaction: the model summarises the conversation, which is then replaced by the summary and
what must survive (the todo list, recently read files re-read from disk, the memory files in the
rebuilt system prompt).

The summary request is the session's own request (same system prompt and tools, so the prompt
cache is reused) with the summary prompt as a last user message and `tool_choice: none`. A request
that does not fit is made to (app/engine/compact_fit.py: tool results and middle turns give way,
the earliest summary and the user's requests stay), and a "prompt is too long" answer makes it
smaller, a few times at most. Only a text summary is accepted: a refusal, a tool call or an answer
cut at max_tokens fails the compaction. The transcript gets a `compact`
line holding the new conversation, so --continue and --resume start from it; the lines before stay.
A failure leaves the conversation exactly as it was.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from app import debuglog
from app.engine.clear_results import refetchable
from app.engine.compact_fit import fit_for_summary
from app.engine.compact_prompt import (
    CONTINUE_TEXT,
    SUMMARY_INTRO,
    extract_summary,
    summary_prompt,
)
from app.engine.context import compact_threshold, estimate_tokens
from app.engine.events import CompactionFailed, CompactionFinished, CompactionStarted, Retrying
from app.engine.normalize import normalize_for_api
from app.engine.retry import backoff_delay, classify, max_retries
from app.engine.survivors import MAX_FILES, recent_files, reread_files, todo_text
from app.model.context_limit import overflow_of
from app.model.request import build_request
from tools.abort import AbortController

if TYPE_CHECKING:
    from app.engine.session import Session

Trigger = Literal["manual", "auto"]
SUMMARY_MAX_TOKENS = 16_000
# Room for the summary prompt and the request's own framing, in tokens.
PROMPT_ROOM = 2_000
TOO_LONG_RETRIES = 3
# The share of the compaction threshold a compacted conversation may fill at most (re-read files
# are cut to stay under it), leaving room for the work that follows.
FILL = 0.6
_OVERFLOW_PHRASES = (
    "prompt is too long",
    "exceed context limit",
    "exceeds the context window",
    "context_length_exceeded",
)


def is_context_overflow(message: str | None) -> bool:
    """Whether an API error says the prompt does not fit the model's window (the 400 variants,
    and a 413 for a request over the API's byte limit, which a compaction cures as well)."""
    text = (message or "").lower()
    return any(p in text for p in _OVERFLOW_PHRASES) or "api error 413" in text


@dataclass(frozen=True)
class CompactResult:
    ok: bool
    message: str
    tokens_before: int = 0
    tokens_after: int = 0
    summary: str = ""
    duration_s: float = 0.0


class CompactionError(Exception):
    pass


async def compact(
    session: Session, trigger: Trigger, instructions: str = "", abort: AbortController | None = None
) -> CompactResult:
    started = time.perf_counter()
    abort = abort or AbortController()
    before = session.context_tokens()
    session.emit(CompactionStarted(trigger))
    try:
        instructions = await _pre_compact_hooks(session, trigger, instructions)
        # Automatic: the prompt about to be sent stays verbatim. Manual: there is no such prompt
        # (an unanswered one is from a turn that failed), so everything is summarised.
        head, tail = (
            _split_tail(session.messages) if trigger == "auto" else (list(session.messages), [])
        )
        if not head:
            raise CompactionError("Nothing to compact yet.")
        text = await _summarise(session, head, instructions, abort)
    except CompactionError as exc:
        return _failed(session, trigger, str(exc))
    new = await _compacted_messages(session, text, head, tail, trigger)
    session.replace_messages(new, record={"trigger": trigger, "summary": text, "tokens": before})
    after = session.context_tokens()
    duration = time.perf_counter() - started
    session.emit(CompactionFinished(trigger, before, after, text, duration))
    session.report_context()
    return CompactResult(True, "Conversation compacted.", before, after, text, duration)


def _failed(session: Session, trigger: Trigger, message: str) -> CompactResult:
    session.emit(CompactionFailed(trigger, message))
    return CompactResult(False, message)


async def _pre_compact_hooks(session: Session, trigger: Trigger, instructions: str) -> str:
    hooks = session.parts.session_hooks
    if hooks is None:
        return instructions
    verdict = await hooks.pre_compact(trigger, instructions, session.context)
    from app.engine.events import Notice

    for message in verdict.messages:
        session.emit(Notice(message.text, message.level))
    if verdict.blocked is not None:
        raise CompactionError(f"Compaction blocked by a PreCompact hook: {verdict.blocked}")
    return instructions


def compactable(messages: list[dict[str, Any]]) -> bool:
    """Whether an automatic compaction has anything to summarise (not only the prompt about
    to be sent)."""
    return bool(_split_tail(messages)[0])


def _split_tail(
    messages: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A prompt not answered yet (the turn that is about to be sent) stays verbatim after the
    summary; everything before it is summarised."""
    if messages and messages[-1].get("role") == "user":
        content = messages[-1].get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        first = blocks[0] if blocks else None
        opener = isinstance(first, Mapping) and str(first.get("text", "")).startswith(SUMMARY_INTRO)
        # The opening of an earlier compaction is no prompt: it is what gets summarised again.
        if not opener and not any(
            isinstance(b, Mapping) and b.get("type") == "tool_result" for b in blocks
        ):
            return list(messages[:-1]), [messages[-1]]
    return list(messages), []


async def _summarise(
    session: Session, head: list[dict[str, Any]], instructions: str, abort: AbortController
) -> str:
    window = session.context_window()
    room = window - SUMMARY_MAX_TOKENS - PROMPT_ROOM - session.fixed_tokens()
    budget = session.context_config.tool_results_budget
    for attempt in range(TOO_LONG_RETRIES + 1):
        # The earliest summary and the user's requests are kept; the rest gives way first.
        work = fit_for_summary(head, max(room, 1), budget, refetchable(session.deps.find))
        try:
            return await _request(session, work, instructions, abort)
        except _TooLong as exc:
            if attempt >= TOO_LONG_RETRIES:
                raise CompactionError(
                    f"The conversation is too long even to summarise ({exc}); /clear starts afresh."
                ) from None
            over = overflow_of(str(exc))
            # API tokens to lose, in estimated tokens (the estimate runs low), plus a margin.
            extra = (over[0] - over[1]) if over else 0
            room = min(room, estimate_tokens(work)) - max(extra * 2, estimate_tokens(work) // 5)
    raise CompactionError("compaction failed")  # not reached: the loop returns or raises


class _TooLong(Exception):
    pass


def summary_of(response: Any) -> str:
    """The summary in a response, or CompactionError when the response is not one: a refusal, a
    tool call (tools are off for this request, so one is a model gone astray), an answer cut at
    the output limit, or no text at all. Accepting any of these would replace the conversation
    with something that does not carry it."""
    stop = getattr(response, "stop_reason", None)
    content = list(getattr(response, "content", None) or [])
    if stop == "refusal":
        raise CompactionError("The model declined to write the summary; nothing was changed.")
    if any(getattr(b, "type", "") == "tool_use" for b in content) or stop == "tool_use":
        raise CompactionError(
            "The model called a tool instead of writing the summary; nothing was changed."
        )
    if stop == "max_tokens":
        raise CompactionError(
            "The summary was cut off at the output limit; nothing was changed. "
            "/compact with instructions (e.g. to be brief) tries again."
        )
    summary = extract_summary(
        "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")
    )
    if not summary:
        raise CompactionError("The model returned an empty summary; nothing was changed.")
    return summary


INTERRUPTED = "Compaction interrupted; the conversation is unchanged."


def _cancel(task: asyncio.Future[Any]) -> None:
    task.cancel()


async def _aborted_within(abort: AbortController, delay: float) -> bool:
    try:
        await asyncio.wait_for(abort.signal.wait(), delay)
    except TimeoutError:
        return False
    return True


async def _request(
    session: Session, messages: list[dict[str, Any]], instructions: str, abort: AbortController
) -> str:
    from app.mcp.deferred import deferred_tools_text, loaded_tool_names, split_deferred

    conversation = [
        *messages,
        {"role": "user", "content": [{"type": "text", "text": summary_prompt(instructions)}]},
    ]
    split = split_deferred(session.pool.tools, loaded=loaded_tool_names(messages))
    system = session.parts.system
    if split.deferred:
        system = [*system, {"type": "text", "text": deferred_tools_text(split.deferred)}]
    last = session.pool.builtin_breakpoint
    params = build_request(
        model=session.backend.model,
        system=system,
        tools=split.sent,
        last_builtin=last if last >= 0 else None,
        messages=normalize_for_api(conversation),
        max_tokens=min(session.parts.max_tokens, SUMMARY_MAX_TOKENS),
        extra={"tool_choice": {"type": "none"}} if split.sent else None,
    )
    attempts = max_retries() + 1
    for attempt in range(attempts):
        task = asyncio.ensure_future(session.backend.client.messages.create(**params))
        remove = abort.signal.add_listener(functools.partial(_cancel, task))
        try:
            response: Any = await task
        except asyncio.CancelledError:
            if abort.signal.aborted:
                raise CompactionError(INTERRUPTED) from None
            raise
        except Exception as exc:
            debuglog.record("engine", f"a compaction request failed (attempt {attempt + 1})", exc)
            info = classify(exc)
            if is_context_overflow(info.message):
                raise _TooLong(info.message) from None
            if not info.retryable or attempt + 1 >= attempts:
                raise CompactionError(f"Compaction failed: {info.message}") from None
            delay = backoff_delay(attempt, info.retry_after)
            session.emit(Retrying(attempt + 1, delay, info.message))
            if await _aborted_within(abort, delay):
                raise CompactionError(INTERRUPTED) from None
            continue
        finally:
            remove()
        session.usage.add(getattr(response, "model", "") or session.backend.model, response.usage)
        return summary_of(response)
    raise CompactionError("Compaction failed: no response")


async def _compacted_messages(
    session: Session,
    summary: str,
    head: list[dict[str, Any]],
    tail: list[dict[str, Any]],
    trigger: Trigger,
) -> list[dict[str, Any]]:
    cfg = session.context_config
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": f"{SUMMARY_INTRO}<summary>\n{summary}\n</summary>"}
    ]
    todos = todo_text(session.context)
    if todos:
        blocks.append({"type": "text", "text": todos})
    if trigger == "auto" and not tail:
        blocks.append({"type": "text", "text": CONTINUE_TEXT})
    # The re-read files get what is left once the rest is counted, so that the compacted
    # conversation sits well under the threshold: otherwise the next request compacts again, or
    # overflows with nothing left to compact.
    target = int(compact_threshold(session.context_window(), session.parts.max_tokens, cfg) * FILL)
    rest = session.fixed_tokens() + estimate_tokens(blocks) + estimate_tokens(tail)
    budget = min(cfg.reread_files_budget, target - rest)
    files = recent_files(head, session.context.cwd, MAX_FILES, session.deps.find)
    texts = await reread_files(session, files, budget) if budget > 0 and files else []
    at = 2 if todos else 1
    blocks[at:at] = [{"type": "text", "text": text} for text in texts]
    return [{"role": "user", "content": blocks}, *tail]
