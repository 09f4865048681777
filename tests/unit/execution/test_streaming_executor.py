"""The streaming executor: scheduling, order, aborts, discards, interrupts, context modifiers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.execution import streaming_executor as se
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolStarted
from app.execution.orchestration import partition_tool_calls, run_tools
from app.execution.pipeline import PipelineDeps
from app.execution.streaming_executor import StreamingToolExecutor
from app.execution.texts import REJECT_MESSAGE, STREAMING_FALLBACK, invalid_json
from tests.support.fake_tools import AllowAll, tool_use
from tools.abort import AbortController

MSG: dict[str, Any] = {"role": "assistant", "content": []}


async def drain(executor: StreamingToolExecutor) -> list[Any]:
    return [o async for o in executor.get_remaining_results()]


async def test_results_in_tool_use_order_even_when_later_ones_finish_first(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "SafeSleep", ms=30), MSG)
    ex.add_tool(tool_use("b", "SafeSleep", ms=1), MSG)
    ex.add_tool(tool_use("c", "SafeSleep", ms=10), MSG)
    await asyncio.sleep(0.015)
    # b and c are done, but a is not: nothing may be released yet.
    assert ex.get_completed_results() == []
    results = await drain(ex)
    assert [r.tool_use_id for r in results] == ["a", "b", "c"]


async def test_safe_tools_overlap_unsafe_tools_never_do(fake_tools, ctx, recorder):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    for i, name in enumerate(
        ["SafeSleep", "SafeSleep", "UnsafeSleep", "SafeSleep", "UnsafeSleep", "UnsafeSleep"]
    ):
        ex.add_tool(tool_use(f"t{i}", name, ms=5), MSG)
    await drain(ex)
    assert recorder.violations == []
    s0, s1 = recorder.intervals["t0"], recorder.intervals["t1"]
    assert s1[0] < s0[1], "the two safe tools should have overlapped"
    assert recorder.started == ["t0", "t1", "t2", "t3", "t4", "t5"]


async def test_unsafe_tool_blocks_later_safe_tools(fake_tools, ctx, recorder):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("s1", "SafeSleep", ms=10), MSG)
    ex.add_tool(tool_use("u", "UnsafeSleep", ms=1), MSG)
    ex.add_tool(tool_use("s2", "SafeSleep", ms=1), MSG)
    await drain(ex)
    assert recorder.started == ["s1", "u", "s2"]
    assert recorder.violations == []


async def test_unknown_or_unparseable_or_raising_declaration_runs_alone(fake_tools, ctx):
    deps = PipelineDeps(fake_tools, decider=AllowAll())
    runs = partition_tool_calls(
        [
            tool_use("a", "SafeSleep"),
            tool_use("b", "SafeSleep", ms="x"),
            tool_use("c", "SafeSleep"),
            tool_use("d", "Nope"),
            tool_use("e", "Exploding"),
            tool_use("f", "SafeSleep"),
            tool_use("g", "SafeSleep"),
        ],
        deps,
    )
    assert [(r.safe, [b["id"] for b in r.blocks]) for r in runs] == [
        (True, ["a"]),
        (False, ["b"]),
        (True, ["c"]),
        (False, ["d"]),
        (False, ["e"]),
        (True, ["f", "g"]),
    ]


async def test_events_are_emitted_at_once(fake_tools, ctx):
    events: list[Any] = []
    ex = StreamingToolExecutor(
        PipelineDeps(fake_tools, decider=AllowAll()), ctx, on_event=events.append
    )
    ex.add_tool(tool_use("a", "SafeSleep", progress=3, ms=20), MSG)
    await asyncio.sleep(0.005)
    kinds = [type(e) for e in events]
    assert kinds[:2] == [ToolQueued, ToolStarted]
    assert kinds.count(ToolProgressed) == 3, "progress must arrive while the tool still runs"
    assert ToolFinished not in kinds
    await drain(ex)
    assert isinstance(events[-1], ToolFinished)


async def test_shell_failure_cancels_siblings_not_the_turn(fake_tools, ctx):
    turn = AbortController()
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx, turn.signal)
    ex.add_tool(tool_use("r", "SafeSleep", ms=200), MSG)
    ex.add_tool(tool_use("sh", "SafeShellLike", fail=True, ms=5), MSG)
    ex.add_tool(tool_use("later", "UnsafeSleep"), MSG)
    results = await drain(ex)
    by_id = {r.tool_use_id: r for r in results}
    assert by_id["sh"].result_block["content"] == "SafeShellLike failed on purpose"
    cancelled = "<tool_use_error>Cancelled: parallel tool call sh errored</tool_use_error>"
    assert by_id["r"].result_block["content"] == cancelled
    assert by_id["later"].result_block["content"] == cancelled and not by_id["later"].ran
    assert not turn.signal.aborted


class DenyFailing:
    """Denies every call whose input asks to fail; allows the others."""

    async def decide(self, tool, input, observable, context):  # type: ignore[no-untyped-def]
        from tools.decisions import PermissionDecision

        if observable.get("fail"):
            return PermissionDecision.deny("denied by a rule")
        return PermissionDecision.allow()

    async def decide_as_asking(self, tool, input, observable, context):  # type: ignore[no-untyped-def]
        return await self.decide(tool, input, observable, context)  # no modes: the same verdict


async def test_a_denied_shell_call_does_not_cancel_its_siblings(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=DenyFailing()), ctx)
    ex.add_tool(tool_use("r", "SafeSleep", ms=50), MSG)
    ex.add_tool(tool_use("sh", "SafeShellLike", fail=True, ms=5), MSG)
    ex.add_tool(tool_use("later", "UnsafeSleep"), MSG)
    results = await drain(ex)
    by_id = {r.tool_use_id: r for r in results}
    assert by_id["sh"].is_error and not by_id["sh"].ran and by_id["sh"].permission_denial
    assert not by_id["r"].is_error and by_id["r"].ran
    assert not by_id["later"].is_error and by_id["later"].ran


async def test_other_failures_do_not_cancel_siblings(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "SafeSleep", ms=20), MSG)
    ex.add_tool(tool_use("b", "SafeSleep", fail=True), MSG)
    results = await drain(ex)
    assert not results[0].is_error and results[1].is_error


async def test_user_interrupt_synthesises_every_result(fake_tools, ctx):
    turn = AbortController()
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx, turn.signal)
    ex.add_tool(tool_use("a", "UnsafeSleep", ms=500), MSG)
    ex.add_tool(tool_use("b", "UnsafeSleep", ms=1), MSG)
    await asyncio.sleep(0.01)
    turn.abort("user_interrupt")
    results = await drain(ex)
    assert [r.result_block["content"] for r in results] == [REJECT_MESSAGE, REJECT_MESSAGE]
    assert results[1].ran is False and fake_tools[1].calls[-1].ms == 500


async def test_tool_ignoring_abort_is_cancelled_after_grace(fake_tools, ctx, monkeypatch):
    monkeypatch.setattr(se, "ABORT_GRACE_S", 0.02)
    turn = AbortController()
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx, turn.signal)
    ex.add_tool(tool_use("a", "UnsafeSleep", ms=60_000, ignore_abort=True), MSG)
    await asyncio.sleep(0.01)
    turn.abort("user_interrupt")
    results = await asyncio.wait_for(drain(ex), 5)
    assert results[0].result_block["content"] == REJECT_MESSAGE


async def test_discard_releases_nothing_more_and_starts_nothing(fake_tools, ctx, recorder):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "UnsafeSleep", ms=100), MSG)
    ex.add_tool(tool_use("b", "UnsafeSleep", ms=1), MSG)
    await asyncio.sleep(0.01)
    ex.discard()
    assert await drain(ex) == []
    await ex.wait_all()
    assert recorder.started == ["a"]
    assert ex.tools[0].outcome is not None
    assert ex.tools[0].outcome.result_block["content"] == STREAMING_FALLBACK
    assert ex.tools[1].outcome is not None and not ex.tools[1].outcome.ran


async def _until(condition: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.001)


async def test_discard_releases_nothing_more_even_what_has_finished(fake_tools, ctx, recorder):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "UnsafeSleep", ms=1), MSG)
    ex.add_tool(tool_use("b", "UnsafeSleep", ms=1), MSG)
    ex.add_tool(tool_use("c", "UnsafeSleep", ms=60_000), MSG)
    await _until(lambda: ex.tools[0].outcome is not None)
    released = ex.get_completed_results()
    assert [o.tool_use_id for o in released] == ["a"]  # released before the discard: stays so
    await _until(lambda: ex.tools[1].outcome is not None)
    ex.discard()
    # b finished before the discard and c ends with the fallback: neither is released, now or
    # after every task has ended (the retried stream's results replace them).
    assert ex.get_completed_results() == []
    await ex.wait_all()
    assert all(t.outcome is not None for t in ex.tools)
    assert ex.tools[2].outcome is not None
    assert ex.tools[2].outcome.result_block["content"] == STREAMING_FALLBACK
    assert ex.get_completed_results() == []
    assert await drain(ex) == []
    assert recorder.started == ["a", "b", "c"]


async def test_user_message_cancels_cancel_tools_and_waits_for_block_tools(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("blocker", "UnsafeSleep", ms=30), MSG)
    ex.add_tool(tool_use("canceller", "CancelSleep", ms=5000), MSG)
    await asyncio.sleep(0.005)
    ex.interrupt_for_user_message()
    assert ex.has_blocking_tools()
    results = await drain(ex)
    assert not results[0].is_error
    assert results[1].result_block["content"] == REJECT_MESSAGE and not results[1].ran
    assert not ex.has_blocking_tools()


async def test_invalid_json_keeps_its_place(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "SafeSleep", ms=5), MSG)
    ex.add_tool(
        {"type": "tool_use", "id": "b", "name": "SafeSleep", "input": {}},
        MSG,
        preset_content=invalid_json('{"ms": 1'),
    )
    ex.add_tool(tool_use("c", "SafeSleep"), MSG)
    results = await drain(ex)
    assert [r.tool_use_id for r in results] == ["a", "b", "c"]
    assert results[1].result_block["content"] == '{"INVALID_JSON": "{\\"ms\\": 1"}'
    assert results[1].is_error


async def test_context_modifiers_replay_in_declaration_order(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "SafeSleep", ms=30, modifier=True), MSG)
    ex.add_tool(tool_use("b", "SafeSleep", ms=1, modifier=True), MSG)
    ex.add_tool(tool_use("u", "UnsafeSleep", modifier=True), MSG)
    ex.add_tool(tool_use("c", "SafeSleep", ms=1, modifier=True), MSG)
    await drain(ex)
    assert ex.context.state["order"] == ("a", "b", "u", "c")


async def test_run_tools_matches_partition(fake_tools, ctx, recorder):
    blocks = [
        tool_use("a", "SafeSleep", ms=5),
        tool_use("b", "UnsafeSleep"),
        tool_use("c", "SafeSleep", modifier=True),
    ]
    outcomes, final = await run_tools(
        blocks, MSG, ctx, PipelineDeps(fake_tools, decider=AllowAll())
    )
    assert [o.tool_use_id for o in outcomes] == ["a", "b", "c"]
    assert final.state["order"] == ("c",)
    assert recorder.violations == []


async def test_get_completed_results_never_waits(fake_tools, ctx):
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx)
    ex.add_tool(tool_use("a", "SafeSleep", ms=1000), MSG)
    assert ex.get_completed_results() == []
    ex.discard()
    await ex.wait_all()


@pytest.mark.parametrize("reason", ["user_interrupt", "sibling_error"])
async def test_abort_before_start_means_never_started(fake_tools, ctx, recorder, reason):
    turn = AbortController()
    turn.abort(reason, "x")
    ex = StreamingToolExecutor(PipelineDeps(fake_tools, decider=AllowAll()), ctx, turn.signal)
    ex.add_tool(tool_use("a", "SafeSleep"), MSG)
    results = await drain(ex)
    assert recorder.started == [] and results[0].is_error
