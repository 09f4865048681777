"""The key guard of the dialogs that grant something, measured from when the dialog is on screen
and judged by when each key arrived (black-box round 2, F8 and F9)."""

from __future__ import annotations

import time
from typing import Any

from textual import events

from app.tui.screens import typed_ahead
from app.tui.screens.permission import PermissionScreen
from app.tui.screens.trust import TrustScreen
from app.tui.screens.typed_ahead import TypedAhead
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app


def _typed_before(app: Any, text: str, arrived: float) -> None:
    """Keys the terminal delivered at `arrived` (before the dialog was drawn), handled now."""
    for ch in text:
        key = events.Key("space" if ch == " " else ch, ch)
        key.time = arrived
        app.post_message(key)


async def test_keys_typed_before_the_first_frame_do_not_answer_the_trust_dialog() -> None:
    answers: list[tuple[str, bool]] = []
    app = make_app(
        ask_trust_for="/srv/project",
        on_trust=lambda f, t: answers.append((f, t)),
        dialog_key_guard_s=1.5,
        clock=time.monotonic,
    )
    early = time.monotonic()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        _typed_before(app, "do step 1 now", early)
        await pilot.pause()
        assert answers == [] and isinstance(app.screen, TrustScreen)
        # The typed text is kept for the prompt, digit included.
        assert app.main.prompt.text == "do step 1 now"
        guard = app.screen.guard
        # Pressed now (inside the guard, measured from the first frame): still no answer.
        await pilot.press("1", "enter", "escape")
        await pilot.pause()
        if time.monotonic() - guard.shown_at < 1.5:  # (a very loaded machine: skip the check)
            assert answers == [] and isinstance(app.screen, TrustScreen)
        while time.monotonic() - guard.shown_at < 1.5:
            await pilot.pause(0.05)
        await pilot.press("1")
        await pilot.pause()
        assert answers == [("/srv/project", True)]


async def test_y_and_n_typed_before_the_first_frame_do_not_answer_the_trust_dialog(
    monkeypatch: Any,
) -> None:
    """Letters typed before the first frame ("yes, then no") and Esc never answer it."""
    monkeypatch.setattr(typed_ahead, "TYPING_GAP_S", 0.2)  # the pause before the answer
    answers: list[tuple[str, bool]] = []
    app = make_app(
        ask_trust_for="/srv/project",
        on_trust=lambda f, t: answers.append((f, t)),
        dialog_key_guard_s=0.5,
        clock=time.monotonic,
    )
    early = time.monotonic()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        _typed_before(app, "yes, then no", early)
        await pilot.pause()
        assert answers == [] and isinstance(app.screen, TrustScreen)
        assert app.main.prompt.text == "yes, then no"
        key = events.Key("escape", None)
        key.time = early
        app.post_message(key)
        await pilot.pause()
        assert answers == [] and isinstance(app.screen, TrustScreen)
        guard = app.screen.guard
        while time.monotonic() - guard.shown_at < 0.6:
            await pilot.pause(0.05)
        # After the guard a letter still never answers (it is kept for the prompt, as at every
        # dialog: black-box round 3, F1); the digit does.
        await pilot.press("y")
        await pilot.pause()
        assert answers == [] and app.main.prompt.text == "yes, then noy"
        # Right after the `y`, a `1` is part of the typing (tui-r4 F4): a pause first.
        kept = app.screen.query_one(TypedAhead)
        while time.monotonic() - kept.last_at < typed_ahead.TYPING_GAP_S:
            await pilot.pause(0.05)
        await pilot.press("1")
        await pilot.pause()
        assert answers == [("/srv/project", True)]


async def test_a_key_that_arrived_in_the_guard_does_not_answer_however_late_handled() -> None:
    app = make_app(dialog_key_guard_s=0.5, clock=time.monotonic)
    question = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        guard = app.screen.guard
        while time.monotonic() - guard.shown_at < 0.6:
            await pilot.pause(0.05)
        # Read by the terminal thread 0.3 s after the dialog showed, handled only now (a busy
        # loop): it must not allow the call.
        key = events.Key("1", "1")
        key.time = guard.shown_at + 0.3
        app.post_message(key)
        await pilot.pause()
        assert not question.answered
        assert app.main.prompt.text == "1"
        # And a key from before the dialog was built (typed ahead) neither.
        key = events.Key("enter", "\r")
        key.time = guard.shown_at - 1.0
        app.post_message(key)
        await pilot.pause()
        assert not question.answered
        await pilot.press("1")
        await pilot.pause()
        assert question.answered and question.resolver.value is not None
        assert question.resolver.value.behavior == "allow"


async def test_the_guard_starts_when_the_dialog_is_drawn_not_built() -> None:
    app = make_app(dialog_key_guard_s=0.5, clock=time.monotonic)
    async with app.run_test(size=SIZE) as pilot:
        screen = PermissionScreen(scenes.bash_prompt(), key_guard_s=0.5, clock=time.monotonic)
        # Built long before it is shown (a loaded machine): the guard has not begun.
        time.sleep(0.6)
        app.push_screen(screen)
        await pilot.pause()
        assert time.monotonic() - screen.guard.shown_at < 0.5
        await pilot.press("1")
        await pilot.pause()
        assert not screen.prompt.answered
