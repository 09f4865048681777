"""tui-r5 F1: the plan dialog wraps a code block's long line, as an ordinary answer does; it
was cut at the dialog's edge with no scroll and no marker, so the end of the line could not be
read before the plan was approved."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Markdown

from app.tui.screens.plan_approval import PlanApprovalScreen
from tests.tui import scenes
from tests.tui.conftest import make_app
from tests.tui.test_interaction_dialogs import prompt_for
from tools.exit_plan_mode import ExitPlanModeTool

LINE = "x = 'a very long line of code that goes beyond sixty columns for sure and keeps going'"
PLAN = f"# Plan\n\n1. Change the code.\n\n```python\n{LINE}\n```\n\nLAST-LINE-OF-PLAN"


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
async def test_the_plans_code_lines_wrap(size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        app.enqueue_permission(prompt_for(ExitPlanModeTool(), {"plan": PLAN}))
        await scenes.settle(app, pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        fence = screen.query_one("#plan").query_one(Markdown).query_one("MarkdownFence")
        width = fence.content_region.width
        assert width < len(LINE)  # the line does not fit: it must wrap to be read
        label = fence.query_one("Label")
        drawn = " ".join(label.render_line(y).text.strip() for y in range(label.size.height))
        assert "and keeps going'" in drawn, drawn
        assert fence.max_scroll_x == 0  # nothing hidden to the right


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_plan_code_wrap_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(prompt_for(ExitPlanModeTool(), {"plan": PLAN}))
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
