"""The panel's clock counts a call's elapsed time from the engine's "running" change (the call
was allowed and its tool started), not from when the executor took it: a 100 s approval wait is
never run time. The events are the engine's own (its ToolCallTracker, as Session.emit feeds it);
the App's clock and the executor's stamps are one fake clock, so nothing sleeps."""

from __future__ import annotations

import asyncio

from app.engine.api import PermissionRequested
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from app.tui.screens.permission import PermissionScreen
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, ScriptedSession, make_app, outcome
from widgets.tool_block import ToolBlock


async def test_the_approval_wait_is_not_in_the_panel_clock_or_the_block() -> None:
    clock = FixedClock(1000.0)
    app = make_app(clock=clock)
    session = ScriptedSession(app)
    question = scenes.bash_prompt()
    running = asyncio.Event()
    finish = asyncio.Event()

    async def call(s: ScriptedSession) -> None:
        calls = s.views.calls
        s.emit(ToolQueued("b1", "Bash", {"command": "npm run test"}, "npm run test", False))
        s.emit(ToolStarted("b1", "Bash", clock.now))
        # Session.emit's order for a question: the call's view, then the question.
        asked = calls.asked(question)
        assert asked is not None
        s.app.handle_engine_event(asked)
        s.emit(PermissionRequested(question))
        await question.resolver.wait()
        answered = calls.answered("b1")
        assert answered is not None
        s.app.handle_engine_event(answered)
        s.emit(ToolRunning("b1", "Bash", clock.now))  # allowed: the tool starts now
        running.set()
        await finish.wait()
        s.emit(ToolFinished("b1", outcome("b1", "Bash", "ok"), 3.0))

    session.steps = [call]
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"run tests", "enter")
        while not isinstance(app.screen, PermissionScreen):
            await pilot.pause()
        panel = app.main.progress
        assert panel.rows["b1"].state == "awaiting" and panel.rows["b1"].started_at is None
        clock.now += 100.0  # the user reads the question for 100 s
        await pilot.press("1")
        await running.wait()
        await pilot.pause()
        row = panel.rows["b1"]
        assert row.state == "running" and row.started_at == 1100.0
        clock.now += 3.0  # the command runs for 3 s
        panel.refresh()
        await pilot.pause()
        line = panel.render().plain.splitlines()[1]
        assert "3.0s" in line and "103" not in line, line
        finish.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        # The block's final time is the engine's: the 3 s run, not the 103 s since it was taken.
        [block] = [b for b in app.main.conversation.query(ToolBlock) if b.state.tool_use_id == "b1"]
        assert block.state.status == "done" and block.state.elapsed == 3.0
