"""The streaming tool executor: tools start while the model is still streaming.

- `add_tool` as each tool_use block completes in the stream; the queue drives itself (each finishing
  tool triggers the next scan).
- Read-write scheduling: a tool may start when nothing is executing, or when it and everything
  executing are concurrency-safe. An unsafe tool that cannot start stops the scan, keeping order.
- Two outputs: lifecycle and progress events go to `on_event` at once; results are released strictly
  in tool_use order by `get_completed_results` (synchronous, never waits) and
  `get_remaining_results` (async, after the stream ends).
- Aborts cascade: the turn's signal -> this batch's sibling controller -> each tool's own. Only a
  tool declaring `cancels_siblings_on_error` (Bash) cancels its siblings, and only when it ran and
  failed (a denial is not an execution error); that never ends the turn.
- Context modifiers of safe tools are queued and replayed in declaration order when the running
  safe set drains; an unsafe tool's modifier applies at once (it ran alone). The final context is
  therefore the same whatever order the tools completed in.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from app import debuglog
from app.execution.events import (
    CALL_CLOCK,
    ExecutorEvent,
    ToolFinished,
    ToolProgressed,
    ToolQueued,
    ToolRunning,
    ToolStarted,
)
from app.execution.outcome import CallOutcome, SyntheticReason, ends_turn, error_outcome
from app.execution.pipeline import PipelineDeps, run_tool_use
from app.execution.safety import call_safety, interrupt_behavior_of
from app.execution.texts import REJECT_MESSAGE, STREAMING_FALLBACK, sibling_cancelled
from tools.abort import AbortController, AbortSignal
from tools.base import Tool, ToolContext, ToolProgress

# After an abort, a tool gets this long to return on its own before its task is cancelled: a tool
# that ignores its abort signal must not hang the turn.
ABORT_GRACE_S = 5.0


class ToolStatus(Enum):
    QUEUED = "queued"
    EXECUTING = "executing"
    COMPLETED = "completed"
    YIELDED = "yielded"


@dataclass
class TrackedTool:
    index: int
    block: Mapping[str, Any]
    parent_message: Mapping[str, Any]
    tool: Tool[Any] | None
    safe: bool
    interrupt: str
    abort: AbortController
    status: ToolStatus = ToolStatus.QUEUED
    outcome: CallOutcome | None = None
    task: asyncio.Task[None] | None = None
    started_at: float = 0.0
    # When the call was allowed and its tool began (None: it never ran); elapsed counts from here.
    running_at: float | None = None
    finished_at: float = 0.0
    preset: CallOutcome | None = None
    watchdog: asyncio.TimerHandle | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return str(self.block.get("id", ""))

    @property
    def name(self) -> str:
        return str(self.block.get("name", ""))


def synthetic_content(reason: SyntheticReason, detail: str) -> str:
    if reason == "sibling_error":
        return sibling_cancelled(detail)
    if reason == "streaming_fallback":
        return STREAMING_FALLBACK
    return REJECT_MESSAGE


def _reason_of(signal: AbortSignal) -> SyntheticReason:
    if signal.reason in ("sibling_error", "streaming_fallback", "user_denied"):
        return signal.reason  # type: ignore[return-value]
    return "user_interrupt"


class StreamingToolExecutor:
    def __init__(
        self,
        deps: PipelineDeps,
        context: ToolContext,
        turn_abort: AbortSignal | None = None,
        on_event: Callable[[ExecutorEvent], None] | None = None,
        clock: Callable[[], float] = CALL_CLOCK,
    ) -> None:
        self._deps = deps
        # The events' clock (tests pass a fake one to measure waits without sleeping).
        self._clock = clock
        self._context = context
        self._turn_abort = turn_abort or AbortSignal()
        self._sibling = AbortController(self._turn_abort)
        self._on_event = on_event or (lambda event: None)
        self._tools: list[TrackedTool] = []
        # Bookkeeping that keeps every step O(1) amortised (1,000 tools in one turn must not go
        # quadratic): the queue in order, the executing set, and where release resumes.
        self._queued: list[TrackedTool] = []
        self._executing_set: set[int] = set()
        self._executing_unsafe = 0
        self._release_index = 0
        self._pending_modifiers: dict[int, Callable[[ToolContext], ToolContext]] = {}
        self._wake = asyncio.Event()
        self._discarded = False
        # The call whose deny ended the turn (None: no such deny); the rest of the batch
        # completes unrun, and the turn stops after it.
        self.stopped_by: str | None = None
        self._sibling.signal.add_listener(self._on_batch_abort)

    # -- input ----------------------------------------------------------------------------------

    @property
    def context(self) -> ToolContext:
        """The context after every modifier released so far."""
        return self._context

    @property
    def discarded(self) -> bool:
        return self._discarded

    def add_tool(
        self,
        block: Mapping[str, Any],
        parent_message: Mapping[str, Any],
        *,
        preset_content: str | None = None,
    ) -> None:
        """Queue a completed tool_use block. `preset_content` completes it at once as an error
        (the stream delivered invalid JSON for it): it still takes its place in the order."""
        tool = self._deps.find(str(block.get("name", "")))
        raw = block.get("input")
        safe, parsed = (False, None) if preset_content is not None else call_safety(tool, raw)
        tracked = TrackedTool(
            index=len(self._tools),
            block=block,
            parent_message=parent_message,
            tool=tool,
            safe=safe,
            interrupt=interrupt_behavior_of(tool),
            abort=AbortController(self._sibling.signal),
        )
        self._tools.append(tracked)
        summary, title, label = "", tracked.name, None
        if tool is not None and isinstance(raw, Mapping):
            try:
                summary = tool.summary(parsed)
            except Exception as exc:
                debuglog.record("executor", f"{tool.name}.summary raised; shown without one", exc)
            try:
                label = tool.label(parsed)
            except Exception as exc:
                debuglog.record("executor", f"{tool.name}.label raised; shown without one", exc)
            try:
                title = tool.user_facing_name(parsed)
            except Exception as exc:
                debuglog.record("executor", f"{tool.name}.user_facing_name raised; its name", exc)
        self._emit(
            ToolQueued(
                tracked.id,
                tracked.name,
                raw if isinstance(raw, Mapping) else {},
                summary,
                safe,
                title,
                label,
                tool.output_focus if tool is not None else "head",
            )
        )
        if preset_content is not None:
            tracked.preset = error_outcome(tracked.id, tracked.name, preset_content)
            self._complete(tracked, tracked.preset)
            return
        if self._discarded:
            self._complete(tracked, self._synthetic(tracked, "streaming_fallback"))
            return
        self._queued.append(tracked)
        self._scan()

    # -- scheduling ------------------------------------------------------------------------------

    def can_execute(self, safe: bool) -> bool:
        """Nothing executing, or this and everything executing are concurrency-safe."""
        return not self._executing_set or (safe and self._executing_unsafe == 0)

    def _scan(self) -> None:
        if self._discarded:
            return
        still: list[TrackedTool] = []
        blocked = False
        for tracked in self._queued:
            if tracked.status is not ToolStatus.QUEUED:
                continue
            if tracked.abort.signal.aborted:
                reason = _reason_of(tracked.abort.signal)
                self._complete(tracked, self._synthetic(tracked, reason))
                continue
            if not blocked and self.can_execute(tracked.safe):
                self._start(tracked)
                continue
            still.append(tracked)
            if not tracked.safe:
                blocked = (
                    True  # an unsafe tool that cannot start keeps everything behind it waiting
                )
            elif self._executing_unsafe:
                blocked = True
        self._queued = still

    def _start(self, tracked: TrackedTool) -> None:
        if not tracked.safe:
            self._flush_modifiers()
        tracked.status = ToolStatus.EXECUTING
        self._executing_set.add(tracked.index)
        if not tracked.safe:
            self._executing_unsafe += 1
        tracked.started_at = self._clock()
        self._emit(ToolStarted(tracked.id, tracked.name, tracked.started_at))
        context = self._context.with_call(tracked.id, tracked.abort.signal)
        tracked.task = asyncio.get_running_loop().create_task(self._run(tracked, context))
        tracked.abort.signal.add_listener(lambda: self._arm_watchdog(tracked))

    async def _run(self, tracked: TrackedTool, context: ToolContext) -> None:
        def on_progress(progress: ToolProgress) -> None:
            if tracked.status is ToolStatus.EXECUTING:
                self._emit(ToolProgressed(tracked.id, progress, self._clock()))

        def on_running() -> None:
            # Once, and only while the call is still this executor's to run.
            if tracked.status is ToolStatus.EXECUTING and tracked.running_at is None:
                tracked.running_at = self._clock()
                self._emit(ToolRunning(tracked.id, tracked.name, tracked.running_at))

        try:
            outcome = await run_tool_use(
                tracked.block, tracked.parent_message, context, self._deps, on_progress, on_running
            )
        except asyncio.CancelledError:
            outcome = self._synthetic(tracked, _reason_of(tracked.abort.signal))
        except Exception as exc:  # run_tool_use already catches; this is the last line of defence
            debuglog.record("executor", f"running {tracked.name} ({tracked.id}) raised", exc)
            outcome = error_outcome(tracked.id, tracked.name, f"Error: {exc}")
        reason = _reason_of(tracked.abort.signal) if tracked.abort.signal.aborted else None
        if reason is not None and (
            outcome.synthetic is None
            or (outcome.synthetic == "user_interrupt" and reason != "user_interrupt")
        ):
            # The tool returned after its abort: the model hears why it stopped, not a partial run
            # (and a question the abort closed says a deny stopped it, when one did).
            outcome = self._synthetic(tracked, reason, ran=outcome.ran)
        self._complete(tracked, outcome)
        if ends_turn(outcome.decision) and self.stopped_by is None:
            # The user denied this call and wants to say what to do instead: nothing else of
            # the batch runs (queued calls complete unrun, running ones are aborted, open
            # questions close), each with the rejection text, as Claude Code does.
            self.stopped_by = tracked.id
            self._sibling.abort("user_denied", tracked.id)
        if (
            outcome.is_error
            and outcome.ran
            and outcome.synthetic is None
            and tracked.tool is not None
            and tracked.tool.cancels_siblings_on_error
        ):
            # Only a command that ran and failed stops its siblings (they likely depend on it). A
            # denial, a hook's block or a bad input is no execution error: each call of the batch
            # is judged on its own and the allowed ones run.
            self._sibling.abort("sibling_error", tracked.id)
        self._scan()

    def _arm_watchdog(self, tracked: TrackedTool) -> None:
        task = tracked.task
        if task is None or task.done():
            return
        loop = asyncio.get_running_loop()
        tracked.watchdog = loop.call_later(ABORT_GRACE_S, task.cancel)

    def _complete(self, tracked: TrackedTool, outcome: CallOutcome) -> None:
        if tracked.status in (ToolStatus.COMPLETED, ToolStatus.YIELDED):
            return
        if tracked.watchdog is not None:
            tracked.watchdog.cancel()
        tracked.abort.detach()
        was_executing = tracked.status is ToolStatus.EXECUTING
        if was_executing:
            self._executing_set.discard(tracked.index)
            if not tracked.safe:
                self._executing_unsafe -= 1
        tracked.outcome = outcome
        tracked.status = ToolStatus.COMPLETED
        tracked.finished_at = self._clock()
        modifier = outcome.context_modifier
        if modifier is not None and not self._discarded:
            if tracked.safe:
                self._pending_modifiers[tracked.index] = modifier
            else:
                self._context = modifier(self._context)
        if not self._executing_set:
            self._flush_modifiers()
        # From the moment the call really ran: its permission step and any question are not part
        # of it; a call that never ran has none.
        ran_from = tracked.running_at if was_executing else None
        elapsed = tracked.finished_at - ran_from if ran_from is not None else 0.0
        self._emit(ToolFinished(tracked.id, outcome, elapsed))
        self._wake.set()

    def _flush_modifiers(self) -> None:
        for index in sorted(self._pending_modifiers):
            self._context = self._pending_modifiers[index](self._context)
        self._pending_modifiers.clear()

    def _synthetic(
        self, tracked: TrackedTool, reason: SyntheticReason, ran: bool = False
    ) -> CallOutcome:
        detail = self._sibling.signal.detail if reason == "sibling_error" else ""
        if reason == "sibling_error" and tracked.abort.signal.reason == "sibling_error":
            detail = tracked.abort.signal.detail
        outcome = error_outcome(
            tracked.id, tracked.name, synthetic_content(reason, detail), synthetic=reason
        )
        outcome.ran = ran
        return outcome

    def _on_batch_abort(self) -> None:
        # Queued tools must not start after an abort; complete them on the loop, in order.
        try:
            asyncio.get_running_loop().call_soon(self._scan)
        except RuntimeError:
            self._scan()
        self._wake.set()

    def _emit(self, event: ExecutorEvent) -> None:
        try:
            self._on_event(event)
        except Exception as exc:  # a broken observer must not break tool execution
            debuglog.record(
                "sink", f"the executor's event observer raised on {type(event).__name__}", exc
            )

    # -- interrupts ------------------------------------------------------------------------------

    def interrupt_for_user_message(self) -> None:
        """The user sent a message while tools run: tools declared "cancel" stop now; "block"
        tools finish, and the message waits for them."""
        for tracked in self._tools:
            if tracked.status in (ToolStatus.QUEUED, ToolStatus.EXECUTING) and (
                tracked.interrupt == "cancel"
            ):
                tracked.abort.abort("user_interrupt")
        self._scan()

    def has_blocking_tools(self) -> bool:
        return any(
            t.status in (ToolStatus.QUEUED, ToolStatus.EXECUTING) and t.interrupt == "block"
            for t in self._tools
        )

    def discard(self) -> None:
        """The stream failed and will be retried: queued tools never start, running ones are
        aborted with the streaming-fallback reason, and nothing more is released."""
        self._discarded = True
        self._sibling.abort("streaming_fallback")
        for tracked in self._queued:
            if tracked.status is ToolStatus.QUEUED:
                self._complete(tracked, self._synthetic(tracked, "streaming_fallback"))
        self._queued = []
        self._wake.set()

    # -- output ----------------------------------------------------------------------------------

    def get_completed_results(self) -> list[CallOutcome]:
        """Results ready to release, strictly in tool_use order. Never waits."""
        if self._discarded:
            return []
        released: list[CallOutcome] = []
        while self._release_index < len(self._tools):
            tracked = self._tools[self._release_index]
            if tracked.status is not ToolStatus.COMPLETED or tracked.outcome is None:
                break
            tracked.status = ToolStatus.YIELDED
            released.append(tracked.outcome)
            self._release_index += 1
        return released

    async def get_remaining_results(self) -> AsyncIterator[CallOutcome]:
        """After the stream ended: every remaining result, in order, as soon as it is ready."""
        while True:
            self._wake.clear()
            for outcome in self.get_completed_results():
                yield outcome
            if self._discarded or self._release_index >= len(self._tools):
                return
            await self._wake.wait()

    async def wait_all(self) -> None:
        """Wait for every started task to end (used after a discard, before throwing it away)."""
        tasks = [t.task for t in self._tools if t.task is not None and not t.task.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def tools(self) -> list[TrackedTool]:
        return list(self._tools)

    def counts(self) -> tuple[int, int]:
        """(running, queued), for the progress panel."""
        return len(self._executing_set), sum(
            1 for t in self._queued if t.status is ToolStatus.QUEUED
        )
