"""Keys that arrive in one read (a burst, or a busy moment) are applied in arrival order
(black-box round 2, F5): editing keys are not overtaken by the letters that follow them."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from tests.tui.conftest import SIZE, make_app


def _burst(app: Any, keys: list[str]) -> None:
    """Post every key at once, as the terminal thread does with one read, without waiting."""
    for key in keys:
        character = " " if key == "space" else key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["a", "b", "c", "left", "Z"], "abZc"),
        (["a", "b", "c", "d", "backspace", "backspace", "X", "Y"], "abXY"),
        (
            [*"fix the tpyo", "backspace", "backspace", "backspace", "backspace", *"typo"],
            "fix the typo",
        ),
        (["a", "b", "home", "X", "end", "Y"], "XabY"),
    ],
)
async def test_a_burst_of_keys_is_applied_in_order(keys: list[str], expected: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = ["space" if k == " " else k for k in keys]
        _burst(app, keys)
        await pilot.pause()
        await pilot.pause()
        assert app.main.prompt.text == expected


# The same burst in every other text field (black-box round 3, F8): the deny feedback field,
# AskUserQuestion's "Other" field, the resume picker's search and the full view's search. One
# mechanism serves them all (app/tui/key_order.py), so a field added later gets it too.
BURST = ["a", "b", "c", "left", "left", "Z", "backspace", "Y", "home", "Q", "end", "E"]


async def _field_after_burst(app: Any, pilot: Any, selector: str) -> str:
    from textual.widgets import Input

    field = app.screen.query_one(selector, Input)
    assert field.has_focus
    _burst(app, BURST)
    for _ in range(4):
        await pilot.pause()
    return str(field.value)


async def test_a_burst_in_the_deny_feedback_field() -> None:
    from tests.tui import scenes

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(scenes.bash_prompt())
        await pilot.pause()
        await pilot.press("tab")
        assert await _field_after_burst(app, pilot, "#feedback") == "QaYbcE"


async def test_a_burst_in_the_questions_other_field() -> None:
    from tests.tui.test_interaction_dialogs import ask_prompt

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(ask_prompt())
        await pilot.pause()
        await pilot.press("3")  # "Other" (2 options + Other)
        await pilot.pause()
        assert await _field_after_burst(app, pilot, "#other") == "QaYbcE"


async def test_a_burst_in_the_resume_search() -> None:
    from app.tui.screens.resume import ResumeScreen
    from tests.tui.test_resume_picker import SESSIONS

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ResumeScreen(SESSIONS))
        await pilot.pause()
        assert await _field_after_burst(app, pilot, "#search") == "QaYbcE"


async def test_a_burst_in_the_full_view_search() -> None:
    from app.tui.screens.full_view import open_full_view

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        open_full_view(app, app.main.conversation)
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        assert await _field_after_burst(app, pilot, "#full-search") == "QaYbcE"
