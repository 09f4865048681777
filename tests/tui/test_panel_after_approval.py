"""An approved call runs again in the progress panel: calls start before they ask
(app/execution/streaming_executor.py emits ToolStarted before the permission step), so every
approved call goes running -> awaiting approval -> running, and the panel must follow the last
step (app/tui/event_router.py's "answered" branch), with its clock restarted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.tui.screens.permission import PermissionScreen
from tests.tui.test_dialog_on_real_session import real_app, wait_until

SIZE = (120, 40)


async def test_an_approved_call_is_running_in_the_panel_not_awaiting(
    fake_api: Any, project: Path
) -> None:
    # The command waits for a file the test writes, so it is surely still running when looked at.
    command = "while [ ! -e go ]; do sleep 0.05; done; touch made"
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": command}, "w1")]), text_turn("done")]
    )
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("wait for go")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        row = app.main.progress.rows["w1"]
        assert row.state == "awaiting" and "1 awaiting approval" in app.main.progress.counts()
        await pilot.pause()  # drawn: keys before that never answer
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        await pilot.pause()
        row = app.main.progress.rows["w1"]
        assert row.state == "running" and row.started_at is not None
        assert "awaiting" not in app.main.progress.counts()
        (project / "go").write_text("")
        await wait_until(pilot, lambda: not app.turn_running)
        assert (project / "made").exists()


async def test_an_answered_call_not_yet_running_is_back_to_checking() -> None:
    """After an answer the call is checked again (an "always allow" answer writes the settings
    file before it runs): the panel row leaves "awaiting", shown running with no clock, until
    the engine's "running" change gives it one (P8)."""
    from app.engine.api import ToolCallUpdated, ToolCallView
    from tests.tui.conftest import make_app

    app = make_app()
    view = ToolCallView("c1", "Bash", "ls", {"command": "ls"})
    async with app.run_test(size=SIZE) as pilot:
        for status, change in (
            ("queued", "queued"),
            ("checking", "started"),
            ("awaiting_approval", "awaiting_approval"),
        ):
            app.handle_engine_event(ToolCallUpdated(replace(view, status=status), change))
        await pilot.pause()
        assert app.main.progress.rows["c1"].state == "awaiting"
        app.handle_engine_event(ToolCallUpdated(replace(view, status="checking"), "answered"))
        await pilot.pause()
        row = app.main.progress.rows["c1"]
        assert row.state == "running" and row.started_at is None
        assert "awaiting" not in app.main.progress.counts()
        app.handle_engine_event(
            ToolCallUpdated(replace(view, status="running", started_at=5.0), "running")
        )
        await pilot.pause()
        assert app.main.progress.rows["c1"].started_at == 5.0
