"""Nothing typed at a dialog is lost, at every dialog alike (black-box round 3, F1 and F2): letters,
spaces and digits the dialog does not offer, typed after its key guard, go to the prompt, and the
dialog says "Kept for your prompt". One mechanism (typed_ahead.take_typed_key) serves the trust,
broken-settings, permission, plan and question dialogs."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from app.tui.screens.questions import QuestionsScreen
from app.tui.screens.settings_error import SettingsErrorScreen
from app.tui.screens.trust import TrustScreen
from app.tui.screens.typed_ahead import TypedAhead
from tests.tui.conftest import SIZE, make_app
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
        await pilot.press("1")
        await pilot.pause()
        # The 2nd question (multi-select, 3 options + Other): its own count.
        hint = str(screen.query_one("#hint", Static).render())
        assert hint.startswith("1-4 or ↑↓ move  Space tick")
        await _type(pilot, "5")
        assert _kept(app) == "Kept for your prompt: 45 x5"
        assert app.main.prompt.text == "45 x5"
