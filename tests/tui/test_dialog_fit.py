"""Every modal dialog fits 60x20 and 80x24 (issue 17, attack round 1: 3d, 8b, 10e), and what is
typed at a dialog is kept for the prompt (5e). Snapshots at each size, and the geometry checked
directly: the dialog inside the screen, every part of it inside the dialog."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from app.tui.app import LatheApp
from app.tui.screens.permission import PermissionScreen
from tests.tui import scenes, tool_scenes
from tests.tui.conftest import make_app, pause_typing
from tests.tui.test_interaction_dialogs import ask_prompt, plan_prompt
from tests.tui.test_session_snapshots import SESSIONS
from tests.tui.test_snapshots import SETTINGS_PROBLEMS

SMALL = [(60, 20), (80, 24)]
ALL = [(120, 40), (80, 24), (60, 20)]
Before = Callable[[LatheApp, Pilot[int]], Awaitable[None]]


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


async def _edit_feedback(app: LatheApp, pilot: Pilot[int]) -> None:
    app.enqueue_permission(tool_scenes.edit_question())
    await scenes.settle(app, pilot)
    await pilot.press("tab", *"VISIBLE FEEDBACK")
    await scenes.settle(app, pilot)


async def _bash(app: LatheApp, pilot: Pilot[int]) -> None:
    app.enqueue_permission(scenes.bash_prompt())
    await scenes.settle(app, pilot)


async def _plan(app: LatheApp, pilot: Pilot[int]) -> None:
    app.enqueue_permission(plan_prompt())
    await scenes.settle(app, pilot)


async def _questions(app: LatheApp, pilot: Pilot[int]) -> None:
    app.enqueue_permission(ask_prompt())
    await scenes.settle(app, pilot)


async def _nothing(app: LatheApp, pilot: Pilot[int]) -> None:
    await scenes.settle(app, pilot)


async def _resume(app: LatheApp, pilot: Pilot[int]) -> None:
    await pilot.press("/", *"resume", "enter")
    await scenes.settle(app, pilot)


# name: (app settings, what to do before the shot, the widgets that must show whole)
DIALOGS: dict[str, tuple[dict[str, Any], Before, tuple[str, ...]]] = {
    "trust": ({"ask_trust_for": "/home/me/work/demo"}, _nothing, ("#yes", "#no", "#explain")),
    "settings_error": (
        {"settings_problems": SETTINGS_PROBLEMS, "check_settings": lambda: SETTINGS_PROBLEMS},
        _nothing,
        ("#reload", "#exit", "#continue", "#explain"),
    ),
    "permission_bash": ({}, _bash, ("#choices",)),
    "plan": ({"permission_mode": "plan"}, _plan, ("#choices", "#hint")),
    "questions": ({}, _questions, ("#options", "#hint")),
    "resume": ({"list_sessions": lambda: SESSIONS}, _resume, ("#search", "#sessions", "#hint")),
}


def _inside(outer: Region, inner: Region) -> bool:
    return outer.contains_region(inner)


def _assert_fits(app: LatheApp, parts: tuple[str, ...]) -> None:
    screen = app.screen
    dialog = screen.query_one("#dialog")
    whole = Region(0, 0, *screen.size)
    assert _inside(whole, dialog.region), (dialog.region, whole)
    inner = dialog.content_region
    for selector in parts:
        widget: Widget = screen.query_one(selector)
        assert widget.display, selector
        assert _inside(inner, widget.region), (selector, widget.region, inner)


@pytest.mark.parametrize("name", list(DIALOGS))
@pytest.mark.parametrize("size", SMALL, ids=_size_id)
def test_dialog_fits(snap_compare: Any, name: str, size: tuple[int, int]) -> None:
    cfg, setup, parts = DIALOGS[name]
    app = make_app(**cfg)

    async def before(pilot: Pilot[int]) -> None:
        await setup(app, pilot)
        _assert_fits(app, parts)

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", ALL, ids=_size_id)
def test_feedback_field_shows(snap_compare: Any, size: tuple[int, int]) -> None:
    """Tab on the Edit dialog: the field and what is typed in it show at every size."""
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        await _edit_feedback(app, pilot)
        # The field and its hint line (Enter sends it · Esc denies without it), round 2's F3.
        _assert_fits(app, ("#feedback", "#feedback-hint"))
        field = app.screen.query_one("#feedback")
        assert field.content_region.height >= 1
        assert app.screen.query_one("#feedback-hint").region.height == 1

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", ALL, ids=_size_id)
def test_typed_at_a_dialog_kept_for_the_prompt(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(tool_scenes.edit_question())
        await scenes.settle(app, pilot)
        await pilot.press(*"hello world")
        await scenes.settle(app, pilot)
        _assert_fits(app, ("#typed", "#choices"))

    assert snap_compare(app, terminal_size=size, run_before=before)


async def test_letters_go_to_the_prompt_digits_answer() -> None:
    """Letters and spaces typed at the dialog end up in the prompt; `3` still denies."""
    app = make_app()
    question = tool_scenes.edit_question()
    async with app.run_test(size=(80, 24)) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press(*"hello world")
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)  # letters never answer
        pause_typing(app)  # (right after them `3` would be part of the sentence)
        await pilot.press("3")
        await pilot.pause()
        assert question.answered
        assert not isinstance(app.screen, PermissionScreen)
        assert app.main.prompt.text == "hello world"


async def test_digits_typed_during_the_key_guard_go_to_the_prompt() -> None:
    """Typed as the dialog opens ("fix #2"): not an answer, and kept for the prompt."""
    now = [100.0]
    app = make_app(dialog_key_guard_s=0.5, clock=lambda: now[0])
    question = tool_scenes.edit_question()
    async with app.run_test(size=(80, 24)) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        await pilot.press(*"fix #2")
        await pilot.pause()
        assert not question.answered
        now[0] += 1.0
        await pilot.press("1")  # after the guard the digit answers
        await pilot.pause()
        assert question.answered and question.resolver.value is not None
        assert question.resolver.value.behavior == "allow"
        assert app.main.prompt.text == "fix #2"


async def test_digit_the_dialog_does_not_offer_goes_to_the_prompt() -> None:
    """A plain Bash question without a rule has no `2`/`4`: they are text."""
    app = make_app()
    question = tool_scenes.no_rule_question()
    async with app.run_test(size=(80, 24)) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        await pilot.press("4", "2", "x")
        await pilot.pause()
        assert not question.answered
        assert app.main.prompt.text == "42x"


async def test_feedback_is_typed_in_its_field_not_the_prompt() -> None:
    app = make_app()
    question = tool_scenes.edit_question()
    async with app.run_test(size=(60, 20)) as pilot:
        app.enqueue_permission(question)
        await pilot.pause()
        await pilot.press("tab", *"use a patch")
        await pilot.pause()
        assert app.main.prompt.text == ""
        await pilot.press("enter")
        await pilot.pause()
        decision = question.resolver.value
        assert decision is not None and decision.behavior == "deny"
        assert "use a patch" in decision.message


async def test_more_lines_recounted_after_page_down() -> None:
    """The preview's "N more lines below" changes with PgDn and says when the end shows."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.enqueue_permission(tool_scenes.long_write_question())
        await scenes.settle(app, pilot)
        more = app.screen.query_one("#more")
        first = str(more.render())
        assert "more lines below" in first
        await pilot.press("pagedown")
        await scenes.settle(app, pilot)
        second = str(more.render())
        assert "more lines below" in second and second != first
        for _ in range(60):
            await pilot.press("pagedown")
        await scenes.settle(app, pilot)
        assert "end of the preview" in str(more.render())


@pytest.mark.parametrize("name", ["plan", "questions"])
async def test_letters_at_the_plan_and_questions_dialogs_go_to_the_prompt(name: str) -> None:
    cfg, setup, _ = DIALOGS[name]
    app = make_app(**cfg)
    async with app.run_test(size=(80, 24)) as pilot:
        await setup(app, pilot)
        dialog = app.screen
        await pilot.press(*"later")
        await pilot.pause()
        assert app.screen is dialog and not dialog.prompt.answered  # type: ignore[attr-defined]
        assert app.main.prompt.text == "later"
        assert "later" in str(dialog.query_one("#typed").render())
        pause_typing(app)
        await pilot.press("1")  # the dialog's own digit still answers it (its first question)
        await pilot.pause()
        if name == "plan":
            assert dialog.prompt.answered  # type: ignore[attr-defined]
        else:
            assert len(dialog.answers) == 1  # type: ignore[attr-defined]
        assert app.main.prompt.text == "later"


@pytest.mark.parametrize("size", ALL, ids=_size_id)
def test_feedback_hint_shows_under_a_long_preview(snap_compare: Any, size: tuple[int, int]) -> None:
    """Tab on a dialog whose preview fills the screen: the preview gives up the rows of the field
    and of its hint line, which showed only at 120x40 (black-box round 2, F3)."""
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(tool_scenes.long_write_question())
        await scenes.settle(app, pilot)
        await pilot.press("tab", *"use lowercase instead")
        await scenes.settle(app, pilot)
        _assert_fits(app, ("#feedback", "#feedback-hint"))
        assert app.screen.query_one("#feedback-hint").region.height == 1

    assert snap_compare(app, terminal_size=size, run_before=before)


LONG_OPTION = (
    "A long description of option {n} that explains its trade-offs in detail for the user END{n}"
)


def _long_options_prompt() -> Any:
    from tests.tui.test_interaction_dialogs import prompt_for
    from tools.ask_user_question import AskUserQuestionTool

    options = [{"label": f"Option {n}", "description": LONG_OPTION.format(n=n)} for n in (1, 2, 3)]
    request = {"question": "Which way?", "header": "Way", "options": options}
    return prompt_for(AskUserQuestionTool(), {"questions": [{**request, "multiSelect": False}]})


@pytest.mark.parametrize("size", ALL, ids=_size_id)
def test_question_option_descriptions_wrap(snap_compare: Any, size: tuple[int, int]) -> None:
    """AskUserQuestion options with long descriptions: wrapped inside the dialog, read whole at
    every size (black-box round 2, F7), and the choices still fit."""
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(_long_options_prompt())
        await scenes.settle(app, pilot)
        _assert_fits(app, ("#options", "#hint"))
        buttons = [b for b in app.screen.query("#options Button") if b.display]
        for n, button in enumerate(buttons[:3], start=1):
            label = str(button.label)
            assert f"END{n}" in label
            # Every cell of the label has a place on screen: wrapped, not cut at the edge.
            room = button.content_size.width * button.content_size.height
            assert len(label.rstrip()) <= room, (size, label, button.content_size)

    assert snap_compare(app, terminal_size=size, run_before=before)


def _two_questions_prompt() -> Any:
    """The 1st question's descriptions wrap to several lines; the 2nd (multi-select) has short
    ones and one that wraps at a small size (black-box round 3, F3)."""
    from tests.tui.test_interaction_dialogs import prompt_for
    from tools.ask_user_question import AskUserQuestionTool

    first = [
        {
            "label": "PostgreSQL",
            "description": "A robust relational database with strong "
            "consistency guarantees, rich SQL, JSONB columns and excellent tooling",
        },
        {
            "label": "SQLite",
            "description": "Embedded, zero configuration, a single file on "
            "disk; good for small deployments and tests but limited concurrency for writers",
        },
        {"label": "MongoDB", "description": "Document store"},
    ]
    second = [
        {"label": "Caching", "description": "Add a cache layer"},
        {"label": "Metrics", "description": "Prometheus metrics"},
        {"label": "Tracing", "description": "OpenTelemetry tracing for every request across END"},
    ]
    questions = [
        {
            "question": "Which database should the service use for its persistent storage layer?",
            "header": "Database",
            "options": first,
            "multiSelect": False,
        },
        {
            "question": "Which features do you want?",
            "header": "Features",
            "options": second,
            "multiSelect": True,
        },
    ]
    return prompt_for(AskUserQuestionTool(), {"questions": questions})


@pytest.mark.parametrize("size", ALL, ids=_size_id)
def test_each_question_measures_its_own_rows(snap_compare: Any, size: tuple[int, int]) -> None:
    """The 2nd question is laid out for its own options: no blank rows kept from the 1st
    question's taller rows, and a description that wraps is shown whole."""
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(_two_questions_prompt())
        await scenes.settle(app, pilot)
        await pilot.press("1")
        await scenes.settle(app, pilot)
        _assert_fits(app, ("#options", "#hint"))
        buttons = [b for b in app.screen.query("#options Button") if b.display]
        assert len(buttons) == 4
        for button in buttons:
            label = str(button.label).rstrip()
            width, height = button.content_size
            assert len(label) <= width * height, (size, label, button.content_size)
            if len(label) <= width:
                assert height == 1, (size, label, button.content_size)
        assert "END" in str(buttons[2].label)

    assert snap_compare(app, terminal_size=size, run_before=before)
