"""tui-r4 F9: an AskUserQuestion whose option descriptions wrap to many lines, at 60x20: every
option, "Other" and the key hint are reachable. The options get the rows the rest of the dialog
leaves and scroll; the highlighted row is always scrolled into view; the hint stays below them."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Button, Static

from app.tui.screens.questions import QuestionsScreen
from tests.tui import scenes
from tests.tui.conftest import make_app
from tests.tui.test_interaction_dialogs import prompt_for
from tools.ask_user_question import AskUserQuestionTool

LONG = (
    "A long description that explains in detail what this option does and why you might pick "
    "it over the others "
)
QUESTION = {
    "questions": [
        {
            "question": "Which of these approaches should I take for the refactoring of the "
            "module, given the constraints?",
            "header": "Approach",
            "options": [
                {"label": f"Option {n} label", "description": (LONG * 2).strip()}
                for n in range(1, 5)
            ],
            "multiSelect": True,
        }
    ]
}


def _inside(inner: Any, outer: Any) -> bool:
    return outer.y <= inner.y and inner.bottom <= outer.bottom


@pytest.mark.parametrize("size", [(60, 20), (80, 24)], ids=["60x20", "80x24"])
async def test_every_row_and_the_hint_are_reachable(size: tuple[int, int]) -> None:
    app = make_app()
    prompt = prompt_for(AskUserQuestionTool(), QUESTION)
    async with app.run_test(size=size) as pilot:
        app.enqueue_permission(prompt)
        await scenes.settle(app, pilot)
        await pilot.pause(0.6)  # past the dialog's key guard
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        hint = screen.query_one("#hint", Static)
        options = screen.query_one("#options", VerticalScroll)
        buttons = list(options.query(Button))
        assert len([b for b in buttons if b.display]) == 5  # four options and "Other"
        for row in range(5):
            if row:
                await pilot.press("down")
            await pilot.pause()
            await pilot.pause()
            assert screen.cursor == row
            assert _inside(buttons[row].region, options.region), (row, buttons[row].region)
            # The hint is on screen the whole time, above the footer.
            assert hint.region.height and hint.region.bottom <= size[1] - 1
        await pilot.press("enter")  # "Other": its answer field opens, on screen
        await pilot.pause()
        other = screen.query_one("#other")
        assert other.display and other.region.bottom <= size[1] - 1


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)], ids=["60x20", "80x24", "120x40"])
def test_long_options_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(prompt_for(AskUserQuestionTool(), QUESTION))
        await scenes.settle(app, pilot)
        await pilot.pause(0.6)
        await pilot.press("down", "down", "down")  # option 4 highlighted, scrolled into view
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=before)
