"""Running tool blocks' output tails (app/tui/tail_repaint.py): a couple repainted a frame, the
oldest change first, each at most TAIL_HZ times a second. A fixed clock, and no loop turns
between the calls, so the module's own timers never run in between."""

from __future__ import annotations

from app.engine.events import TurnStarted
from app.execution.events import ToolProgressed, ToolQueued, ToolRunning, ToolStarted
from app.tui.tail_repaint import TAIL_HZ, TAILS_PER_FRAME, TailRepaints
from tests.tui.conftest import SIZE, FixedClock, make_app
from tools.base import ToolProgress


async def test_tails_repaint_a_few_a_frame_oldest_first_and_not_too_often() -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        clock = FixedClock()
        painted: list[str] = []
        tails = TailRepaints(app, painted.append, clock)
        for i in range(16):
            tails.mark(f"t{i}")
        tails.flush()
        assert painted == ["t0", "t1"] and TAILS_PER_FRAME == 2
        tails.mark("t0")  # new output for a block just painted: it queues behind the rest
        tails.mark("t5")  # already waiting: it keeps its place
        for _ in range(7):
            tails.flush()
        assert painted == [f"t{i}" for i in range(16)]
        assert tails.waiting == ["t0"]
        tails.flush()  # t0 was painted less than 1/TAIL_HZ ago
        assert len(painted) == 16
        clock.now += 1 / TAIL_HZ
        tails.flush()
        assert painted[-1] == "t0" and tails.waiting == []


async def test_sixteen_busy_tools_repaint_their_blocks_a_few_at_a_time() -> None:
    from app.engine.tool_views import ToolCallTracker

    views = ToolCallTracker()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        for i in range(16):
            app.handle_engine_event(views.queued(ToolQueued(f"t{i}", "Bash", {}, f"job {i}", True)))
            app.handle_engine_event(views.started(ToolStarted(f"t{i}", "Bash", 1000.0)))
            app.handle_engine_event(views.running(ToolRunning(f"t{i}", "Bash", 1000.0)))
        await pilot.pause()
        painted: list[str] = []
        router = app.router
        repaint = router.tails._repaint
        router.tails._repaint = lambda tid: (painted.append(tid), repaint(tid))  # type: ignore[method-assign]
        for i in range(16):
            progress = ToolProgress(output=f"line of t{i}\n")
            app.handle_engine_event(views.progressed(ToolProgressed(f"t{i}", progress, 1000.5)))
        assert router.tails.waiting == [f"t{i}" for i in range(16)]
        router.tails.flush()
        assert painted == ["t0", "t1"]
        for _ in range(200):  # the module's own timers paint the rest, a couple a frame
            if len(set(painted)) == 16:
                break
            await pilot.pause(0.02)
        assert sorted(painted) == sorted(f"t{i}" for i in range(16))
        assert "line of t15" in router.tool_blocks["t15"].state.output_tail
