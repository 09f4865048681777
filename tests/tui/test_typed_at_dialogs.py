"""Nothing typed at a dialog is lost, at every dialog alike (black-box round 3, F1 and F2): letters,
spaces and digits the dialog does not offer, typed after its key guard, go to the prompt, and the
dialog says "Kept for your prompt". One mechanism (typed_ahead.take_typed_key) serves the trust,
broken-settings, permission, plan and question dialogs."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from app.tui.screens.questions import QuestionsScreen
from app.tui.screens.settings_error import SettingsErrorScreen
from app.tui.screens.trust import TrustScreen
from app.tui.screens.typed_ahead import TypedAhead
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app, pause_typing
from tests.tui.test_interaction_dialogs import ask_prompt


def _kept(app: Any) -> str:
    kept = app.screen.query_one(TypedAhead)
    return str(kept.render()) if kept.display else ""


async def _type(pilot: Pilot[int], text: str) -> None:
    await pilot.press(*("space" if ch == " " else ch for ch in text))
    await pilot.pause()


async def test_letters_typed_at_the_trust_dialog_are_kept_for_the_prompt() -> None:
    answers: list[bool] = []
    app = make_app(ask_trust_for="/srv/project", on_trust=lambda f, t: answers.append(t))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        # "y" and "n" are letters like any other: they never answer (trust grants hooks).
        await _type(pilot, "hello yes any 3")
        assert answers == [] and isinstance(app.screen, TrustScreen)
        assert _kept(app) == "Kept for your prompt: hello yes any 3"
        pause_typing(app)  # right after the sentence, `2` would be part of it
        await pilot.press("2")
        await pilot.pause()
        assert answers == [False]
        assert app.main.prompt.text == "hello yes any 3"


async def test_letters_typed_at_the_broken_settings_dialog_are_kept_for_the_prompt() -> None:
    app = make_app(settings_problems=("settings.toml:1:1: invalid TOML",), check_settings=list)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SettingsErrorScreen)
        await _type(pilot, "hello 4")
        assert isinstance(app.screen, SettingsErrorScreen)
        assert _kept(app) == "Kept for your prompt: hello 4"
        pause_typing(app)
        await pilot.press("3")  # continue
        await pilot.pause()
        assert not isinstance(app.screen, SettingsErrorScreen)
        assert app.main.prompt.text == "hello 4"


async def test_the_questions_hint_counts_the_rows_and_a_digit_with_no_row_is_kept() -> None:
    app = make_app()
    prompt = ask_prompt()  # 1st question: 2 options + Other = 3 rows
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        hint = str(screen.query_one("#hint", Static).render())
        assert hint.startswith("1-3 or ↑↓ Enter choose")
        await _type(pilot, "45 x")  # no row 4 or 5, and Space does not tick a single-select
        assert not prompt.answered and app.screen is screen
        assert _kept(app) == "Kept for your prompt: 45 x"
        pause_typing(app)
        await pilot.press("1")
        await pilot.pause()
        # The 2nd question (multi-select, 3 options + Other): its own count.
        hint = str(screen.query_one("#hint", Static).render())
        assert hint.startswith("1-4 or ↑↓ move  Space tick  Enter send")  # the last question
        await _type(pilot, "5")
        assert _kept(app) == "Kept for your prompt: 45 x5"
        assert app.main.prompt.text == "45 x5"


SIZES = [(120, 40), (80, 24), (60, 20)]
DIALOGS: dict[str, dict[str, Any]] = {
    "trust": {"ask_trust_for": "/home/me/work/demo"},
    "settings_error": {
        "settings_problems": ("settings.toml:1:1: invalid TOML",),
        "check_settings": list,
    },
    "questions": {},
}


@pytest.mark.parametrize("name", list(DIALOGS))
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_kept_for_your_prompt(snap_compare: Any, name: str, size: tuple[int, int]) -> None:
    """Each dialog shows what it kept, inside the dialog, at every size."""
    app = make_app(**DIALOGS[name])

    async def before(pilot: Pilot[int]) -> None:
        if name == "questions":
            app.enqueue_permission(ask_prompt())
        await scenes.settle(app, pilot)
        await _type(pilot, "fix it 5")
        await scenes.settle(app, pilot)
        kept = app.screen.query_one(TypedAhead)
        assert app.screen.query_one("#dialog").content_region.contains_region(kept.region)

    assert snap_compare(app, terminal_size=size, run_before=before)


# tui-r4 F4: a digit inside a sentence typed at a dialog is part of the sentence, at every dialog.
SENTENCE = "please do step 1 differently"


async def test_a_digit_inside_a_sentence_never_answers_the_permission_dialog() -> None:
    app = make_app()
    question = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        screen = app.screen
        await _type(pilot, SENTENCE)
        assert not question.answered and app.screen is screen
        assert app.main.prompt.text == SENTENCE  # the `1` kept, not lost
        assert _kept(app) == f"Kept for your prompt: {SENTENCE}"
        # The sentence goes on through its own digits; after a pause a digit answers again.
        await _type(pilot, " 12")
        assert not question.answered and app.main.prompt.text == SENTENCE + " 12"
        pause_typing(app)
        await pilot.press("1")
        await pilot.pause()
        assert question.answered and question.resolver.value is not None
        assert question.resolver.value.behavior == "allow"


async def test_a_digit_inside_a_sentence_never_answers_the_trust_dialog() -> None:
    answers: list[bool] = []
    app = make_app(ask_trust_for="/srv/project", on_trust=lambda f, t: answers.append(t))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _type(pilot, "do step 1 now")
        assert answers == [] and isinstance(app.screen, TrustScreen)
        assert app.main.prompt.text == "do step 1 now"


async def test_a_digit_first_still_answers() -> None:
    """Nothing typed before it: `1` is the answer, as before (a digit kept in the key guard
    starts no sentence either)."""
    app = make_app()
    question = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        assert question.answered
