"""tui-r5 F10: "No, keep planning" on the plan dialog ends the turn as a deny does, as Claude
Code's "Rejected Claude's plan" does: the model is not asked again until the user writes, and
what the user typed at the dialog waits in the prompt. Words written in the dialog's own field
still go to the model at once. A real Session behind the TUI, the HTTP fake of the API behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.compose import build_session
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.tui.app import LatheApp
from app.tui.screens.plan_approval import PlanApprovalScreen
from tests.support.engine import fake_env
from tests.tui.conftest import SIZE, make_app
from tests.tui.test_denied_edit_diff import _shown
from tests.tui.test_dialog_on_real_session import wait_until
from widgets.tool_block import ToolBlock

pytestmark = pytest.mark.timeout(120)

PLAN = {"plan": "# Plan\n\n1. Step one\n2. Step two"}


def plan_app(fake: Any, repo: Path) -> LatheApp:
    (repo / ".git").mkdir(exist_ok=True)
    app = make_app()

    async def factory(sink: Any) -> Any:
        options = CliOptions(permission_mode="plan")
        setup = build_session(
            options, interactive=True, cwd=repo, env=fake_env(fake), sink=sink, trusted=True
        )
        return setup.session

    app.session_factory = factory
    return app


async def _open_plan(app: LatheApp, pilot: Any) -> PlanApprovalScreen:
    await wait_until(pilot, lambda: app.session is not None)
    app.submit_prompt("plan it")
    await wait_until(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PlanApprovalScreen)
    return screen


async def test_keep_planning_ends_the_turn_and_keeps_the_typed_words(
    fake_api: Any, project: Path
) -> None:
    fake_api.load(
        [turn_of([tool_use_block("ExitPlanMode", PLAN, "p1")]), text_turn("never asked for")]
    )
    app = plan_app(fake_api, project)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _open_plan(app, pilot)
        await pilot.press(*"skip step one")  # kept for the prompt
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is not dialog)
        await wait_until(pilot, lambda: not app.turn_running)
        await pilot.pause()
        assert len(fake_api.requests) == 1  # the model was not called again
        assert app.main.prompt.text == "skip step one"
        assert app.session is not None and app.session.permission_mode == "plan"
        [block] = app.main.conversation.query(ToolBlock)
        assert block.state.status == "denied"
        assert "Rejected the plan" in _shown(block) and "Denied by you" not in _shown(block)


async def test_words_for_the_model_in_the_dialog_go_to_it(fake_api: Any, project: Path) -> None:
    fake_api.load([turn_of([tool_use_block("ExitPlanMode", PLAN, "p1")]), text_turn("replanned")])
    app = plan_app(fake_api, project)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _open_plan(app, pilot)
        await pilot.press("3")  # "No, keep planning": its field for the model opens
        await pilot.pause()
        await pilot.press(*"use step two only", "enter")
        await wait_until(pilot, lambda: app.screen is not dialog)
        await wait_until(pilot, lambda: not app.turn_running)
        assert len(fake_api.requests) == 2
        assert "use step two only" in str(fake_api.requests[-1].body)
