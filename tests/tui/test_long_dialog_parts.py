"""A long plan and a question with long options scroll by key and say what is below (tui-r4 F3,
F9): a 59-step plan at 80x24 and 60x20 is read to its end before it is approved, and every
option of a question, "Other" and the key hint are reachable at 60x20."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from app.tui.screens.plan_approval import PlanApprovalScreen
from tests.tui import scenes
from tests.tui.conftest import make_app
from tests.tui.test_interaction_dialogs import prompt_for
from tools.exit_plan_mode import ExitPlanModeTool

STEPS = 59
PLAN = "# Plan\n\n" + "\n".join(
    f"{n}. Step number {n}: change the module `mod{n}.py` so that it does the right thing for "
    f"case {n}"
    for n in range(1, STEPS + 1)
)


def long_plan() -> Any:
    return prompt_for(ExitPlanModeTool(), {"plan": PLAN})


def _more(app: Any) -> str:
    more = app.screen.query_one("#more", Static)
    return str(more.render()) if more.display else ""


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
async def test_a_long_plan_scrolls_to_its_end(size: tuple[int, int]) -> None:
    app = make_app()
    question = long_plan()
    async with app.run_test(size=size) as pilot:
        app.enqueue_permission(question)
        await scenes.settle(app, pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        plan = screen.query_one("#plan", VerticalScroll)
        assert plan.scroll_y == 0 and "more lines below (PgDn scrolls)" in _more(app)
        first = _more(app)
        await pilot.press("pagedown")
        await pilot.pause()
        assert plan.scroll_y > 0 and _more(app) != first
        await pilot.press("end")
        await pilot.pause()
        assert plan.scroll_y == plan.max_scroll_y
        assert _more(app) == "end of the plan (PgUp scrolls back)"
        await pilot.press("home")
        await pilot.pause()
        assert plan.scroll_y == 0
        # The choices and the hint stay on screen the whole time.
        for row in ("#choice-2", "#hint"):
            widget = screen.query_one(row)
            assert widget.region.bottom <= size[1] - 1, row
        assert not question.answered


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_long_plan_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(long_plan())
        await scenes.settle(app, pilot)
        await pilot.press("pagedown")
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
