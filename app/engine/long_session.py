"""What keeps a long session alive, as the turn loop and the Session call it.

Before each request: clear old tool results past their budget, then compact when the request
would pass the threshold. After each response: take the API's count of the context. When the API
still answers "prompt is too long", learn the server's window from the error, compact and retry
that request once (never a loop);
if that compaction fails, the turn ends with a clear message and the conversation is unchanged.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from app.engine.clear_results import clear_old_results, refetchable
from app.engine.compact import compact, compactable, is_context_overflow
from app.engine.context import (
    Breakdown,
    compact_threshold,
    context_window,
    estimate_tokens,
    split_messages,
    split_system,
)
from app.engine.events import ContextUpdated, Notice, TurnEnded
from app.model.context_limit import overflow_of
from tools.abort import AbortController

STILL_FULL = (
    "The context window is full and compacting failed ({why}). The conversation is unchanged: "
    "/compact (with instructions) tries again, /clear starts afresh."
)

# The request cannot fit however it is compacted (tui-r4 F2): one line, what is too big and what
# to do, instead of a compaction that cannot run and the API's bare error (Claude Code 2.1.332:
# "Prompt is too long · the request is ~23218 tokens (limit 5000) but this conversation is only
# ~3247 tokens — the rest is system prompt, tool definitions, and attachment content. ...").
CANNOT_FIT = (
    "Prompt is too long: the request is {asked} tokens (the model's window is {window:,}) but "
    "the conversation is only ~{conversation:,} of them; the rest is the system prompt, tool "
    "definitions and memory files. {why} Start with fewer tools or MCP servers, smaller "
    "CLAUDE.md files, or a model with a larger window."
)
NOTHING_TO_COMPACT = "A conversation of one prompt cannot be compacted."
FIXED_TOO_BIG = "They alone do not fit, so compacting cannot help."

if TYPE_CHECKING:
    from app.engine.session import Session

RECOVERING = (
    "The conversation no longer fits the model's context window: compacting it and retrying "
    "this request."
)


def window_of(session: Session) -> int:
    """The assumed window, or the server's own when an overflow told it and it is smaller."""
    assumed = context_window(session.backend.model, session.context_config)
    learned = session.context_state.server_window
    return min(assumed, learned) if learned else assumed


def threshold_of(session: Session) -> int | None:
    cfg = session.context_config
    if not cfg.auto_compact:
        return None
    return compact_threshold(window_of(session), session.parts.max_tokens, cfg)


def fixed_tokens(session: Session) -> int:
    """Estimated tokens of the system prompt and the tool definitions (cached per pool)."""
    key = (id(session.parts.system), tuple(session.pool.names))
    cached = session.context_state.fixed_tokens
    if cached is not None and cached[0] == key:
        return cached[1]
    tools = [t.api_definition() for t in session.pool.tools]
    value = estimate_tokens(session.parts.system) + estimate_tokens(tools)
    session.context_state.fixed_tokens = (key, value)
    return value


def tokens_in_use(session: Session) -> int:
    return session.context_state.tokens_in_use(session.messages, fixed_tokens(session))


def report(session: Session) -> None:
    session.emit(ContextUpdated(tokens_in_use(session), window_of(session), threshold_of(session)))


def breakdown(session: Session) -> Breakdown:
    system, memory = split_system(session.parts.system)
    messages, results = split_messages(session.messages)
    tools = estimate_tokens([t.api_definition() for t in session.pool.tools])
    state = session.context_state
    return Breakdown(
        model=session.backend.model,
        window=window_of(session),
        used=tokens_in_use(session),
        compact_at=threshold_of(session),
        system=system,
        memory=memory,
        tools=tools,
        messages=messages,
        tool_results=results,
        compactions=state.compactions,
        cleared_results=state.cleared_results,
    )


def clear_results(session: Session) -> None:
    cfg = session.context_config
    if not cfg.clear_tool_results:
        return
    cleared = clear_old_results(
        session.messages, cfg.tool_results_budget, refetchable(session.deps.find)
    )
    if cleared.results:
        session.context_state.adjust(-cleared.tokens_saved)
        session.context_state.cleared_results += cleared.results


def replace_messages(
    session: Session, messages: list[dict[str, Any]], record: dict[str, Any]
) -> None:
    """The conversation becomes `messages`; the transcript gets a boundary line holding them."""
    session.messages = messages
    session.context_state.forget_count()
    session.context_state.compactions += 1
    rebuild = session.parts.rebuild_system
    if rebuild is not None:
        # Memory files are re-read from disk: what changed on disk is what the model gets.
        session.parts.system = rebuild()
    transcript = session.parts.transcript
    if transcript is not None:
        metadata = {"trigger": record.get("trigger"), "preTokens": record.get("tokens")}
        summary = record.get("summary")
        if not transcript.append_compaction(
            session.session_id, messages, metadata, summary if isinstance(summary, str) else ""
        ):
            session.emit(
                Notice(f"{transcript.failure}; a resume would miss this compaction", "warning")
            )


class TurnGuard:
    """One user turn's view of the context: at most one automatic compaction attempt that
    fails, and at most one recovery from an overflow per request (a request that overflows again
    after its recovery ends the turn), so nothing here can loop."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.auto_failed = False
        self.recovered = False
        # Set when an overflow no compaction can cure ended the request: the turn's error.
        self.cannot_fit = ""

    async def before_request(self, abort: AbortController) -> None:
        session = self.session
        clear_results(session)
        limit = threshold_of(session)
        # Only the prompt about to be sent: nothing to summarise, so no compaction to fail (the
        # request says whether it fits; when it does not, `recover` says why in one line).
        full = limit is not None and tokens_in_use(session) >= limit
        if limit is not None and full and not self.auto_failed and compactable(session.messages):
            result = await compact(session, "auto", abort=abort)
            # One that failed, or did not get below the threshold (a huge prompt), is not tried
            # again this turn: every request would summarise a summary.
            self.auto_failed = not result.ok or result.tokens_after >= limit
        report(session)

    def after_response(self, response: Any) -> None:
        """A whole response came back: its usage (the newest the tracker counted) is the API's
        count of the conversation. A failed or interrupted one says nothing reliable, nor does
        one kept after its stream broke (`broken`: its output tokens never came)."""
        session = self.session
        usage = session.usage.last
        if usage and response.error is None and not response.interrupted and not response.broken:
            session.context_state.record_usage(usage, len(session.messages))
        if response.error is None:
            self.recovered = False  # the next request may recover from an overflow of its own
        report(session)

    async def recover(self, error: str, abort: AbortController) -> bool:
        """True when the conversation was compacted and the request should be sent again."""
        if not is_context_overflow(error):
            return False
        learned = learn_window(self.session, error)
        if not (self.recovered or abort.signal.aborted):
            self.cannot_fit = cannot_fit(self.session, error)
        if learned and not self.cannot_fit:
            self.session.emit(Notice(learned))
        if self.recovered or abort.signal.aborted or self.cannot_fit:
            return False  # (cannot fit: no compaction to try; the turn ends with one line)
        self.recovered = True
        self.session.emit(Notice(RECOVERING, "warning"))
        result = await compact(self.session, "auto", abort=abort)
        if not result.ok:
            self.session.emit(Notice(STILL_FULL.format(why=result.message), "error"))
        return result.ok

    def error_words(self, error: str) -> str:
        """The turn's error as the user reads it: the overflow no compaction cures, in words."""
        return self.cannot_fit or error


def cannot_fit(session: Session, error: str) -> str:
    """CANNOT_FIT when compacting cannot make the request fit: nothing before the prompt to
    summarise, or the system prompt and tools alone fill the window; "" when it may."""
    window = window_of(session)
    over = overflow_of(error)
    asked = f"{over[0]:,}" if over else "more"
    fixed = fixed_tokens(session)
    conversation = max(0, (over[0] if over else tokens_in_use(session)) - fixed)
    if not compactable(session.messages):
        why = NOTHING_TO_COMPACT
    elif fixed >= window:
        why = FIXED_TOO_BIG
    else:
        return ""
    return CANNOT_FIT.format(asked=asked, window=window, conversation=conversation, why=why)


def learn_window(session: Session, error: str) -> str:
    """The server said its window ("N tokens > M maximum"): use M from now on when it is smaller
    than the one assumed, so the threshold and the re-read budget follow the real limit. The
    notice to show when it did ("" when not)."""
    over = overflow_of(error)
    if over is None or over[1] <= 0:
        return ""
    state = session.context_state
    if over[1] < window_of(session):
        state.server_window = over[1]
        return f"The server's context window is {over[1]:,} tokens; using it from now on."
    return ""


async def run_manual(session: Session, instructions: str, abort: AbortController) -> TurnEnded:
    """`/compact [instructions]`, in the TUI and headless; the result reads like a turn's."""
    started = time.perf_counter()
    result = await compact(session, "manual", instructions, abort)
    text = (
        f"Compacted: {result.tokens_before:,} → {result.tokens_after:,} tokens "
        f"in {result.duration_s:.1f}s."
        if result.ok
        else result.message
    )
    info = {"duration_ms": int((time.perf_counter() - started) * 1000), "compact": result.ok}
    event = TurnEnded(
        None, text, not result.ok, "success" if result.ok else "error_during_execution", 0, (), info
    )
    session.emit(event)
    return event
