"""Property tests over random batches: whatever the safety mix, durations, failures, progress,
aborts and discards, the executor keeps its invariants."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.execution.pipeline import PipelineDeps
from app.execution.resolve_once import ResolveOnce
from app.execution.streaming_executor import StreamingToolExecutor
from tests.support.fake_tools import (
    AllowAll,
    CancelSleep,
    Recorder,
    SafeShellLike,
    SafeSleep,
    ShellLike,
    UnsafeSleep,
    tool_use,
)
from tools.abort import AbortController
from tools.base import ToolContext

NAMES = ["SafeSleep", "UnsafeSleep", "ShellLike", "SafeShellLike", "CancelSleep"]


@dataclass(frozen=True)
class Spec:
    name: str
    ms: int
    fail: bool
    progress: int
    modifier: bool
    gap_ms: int  # delay before this block "arrives" from the stream


specs = st.builds(
    Spec,
    name=st.sampled_from(NAMES),
    ms=st.integers(0, 8),
    fail=st.booleans(),
    progress=st.integers(0, 3),
    modifier=st.booleans(),
    gap_ms=st.sampled_from([0, 0, 0, 1, 3]),
)
events = st.sampled_from(["none", "none", "abort", "discard", "user_message"])


def make_tools(recorder: Recorder) -> list[Any]:
    return [
        SafeSleep(recorder),
        UnsafeSleep(recorder),
        ShellLike(recorder),
        SafeShellLike(recorder),
        CancelSleep(recorder),
    ]


async def scenario(batch: list[Spec], event: str, event_at_ms: int) -> None:
    recorder = Recorder()
    turn = AbortController()
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",))
    ex = StreamingToolExecutor(
        PipelineDeps(make_tools(recorder), decider=AllowAll()), ctx, turn.signal
    )
    loop = asyncio.get_running_loop()
    event_time: list[float] = []

    def fire() -> None:
        event_time.append(loop.time())
        if event == "abort":
            turn.abort("user_interrupt")
        elif event == "discard":
            ex.discard()
        elif event == "user_message":
            ex.interrupt_for_user_message()

    handle = loop.call_later(event_at_ms / 1000, fire) if event != "none" else None
    released: list[Any] = []
    for i, spec in enumerate(batch):
        if spec.gap_ms:
            await asyncio.sleep(spec.gap_ms / 1000)
        ex.add_tool(
            tool_use(
                f"t{i}",
                spec.name,
                ms=spec.ms,
                fail=spec.fail,
                progress=spec.progress,
                modifier=spec.modifier,
            ),
            {"role": "assistant"},
        )
        released.extend(ex.get_completed_results())
    released.extend([o async for o in ex.get_remaining_results()])
    await ex.wait_all()
    if handle:
        handle.cancel()
    ids = [f"t{i}" for i in range(len(batch))]
    got = [o.tool_use_id for o in released]
    # Results are released in tool_use order, each at most once.
    assert got == ids[: len(got)]
    if not ex.discarded:
        # Every tool_use gets exactly one result.
        assert got == ids
    else:
        # After a discard nothing more is released, and every tracked tool still has an outcome.
        assert all(t.outcome is not None for t in ex.tools)
    # No unsafe tool ever overlapped another tool.
    assert recorder.violations == []
    # After an abort or discard no tool starts.
    if event in ("abort", "discard") and event_time:
        for tool_id, started in recorder.start_times.items():
            assert started <= event_time[0] + 1e-9 or tool_id not in recorder.started, tool_id
    # Context modifiers end in declaration order, whatever the completion order.
    order = list(ex.context.state.get("order", ()))
    assert order == sorted(order, key=lambda t: int(t[1:]))
    if event == "none" and not any(o.synthetic for o in released):
        expected = [f"t{i}" for i, s in enumerate(batch) if s.modifier and not s.fail]
        assert order == expected


@settings(
    max_examples=int(os.environ.get("LATHE_HYPOTHESIS_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(batch=st.lists(specs, min_size=1, max_size=8), event=events, event_at_ms=st.integers(0, 12))
def test_executor_invariants(batch: list[Spec], event: str, event_at_ms: int) -> None:
    asyncio.run(scenario(batch, event, event_at_ms))


async def race(n: int, delays: list[int]) -> None:
    once: ResolveOnce[int] = ResolveOnce()
    wins: list[int] = []
    losers_saw_resolved: list[bool] = []

    async def racer(i: int) -> None:
        for _ in range(delays[i]):
            await asyncio.sleep(0)
        if once.claim():
            wins.append(i)
            await asyncio.sleep(0)  # side effects happen after the claim
            once.set_claimed(i)
        else:
            losers_saw_resolved.append(once.is_resolved())

    await asyncio.gather(*(racer(i) for i in range(n)))
    assert len(wins) == 1
    assert all(losers_saw_resolved) and len(losers_saw_resolved) == n - 1
    assert await once.wait() == wins[0]
    assert once.resolve(-1) is False and once.value == wins[0]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 12))
def test_resolve_once_has_exactly_one_winner(data: st.DataObject, n: int) -> None:
    delays = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    asyncio.run(race(n, delays))
