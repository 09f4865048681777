"""Pilot tests and snapshots of the questions dialog (AskUserQuestion) and the plan dialog
(ExitPlanMode): keys, clicks, multi-select, "Other", keep planning, the status bar's mode."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.views import PermissionQuestion
from app.execution.interfaces import PermissionPrompt
from app.tui.screens.plan_approval import PlanApprovalScreen
from app.tui.screens.questions import QuestionsScreen
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app, question
from tools.ask_user_question import AskUserQuestionTool
from tools.base import Tool
from tools.decisions import DecisionReason
from tools.exit_plan_mode import ExitPlanModeTool

QUESTIONS = {
    "questions": [
        {
            "question": "Which date library should we use?",
            "header": "Library",
            "options": [
                {"label": "dayjs", "description": "2 kB, moment-like API"},
                {"label": "luxon", "description": "time zones built in"},
            ],
            "multiSelect": False,
        },
        {
            "question": "Which features do you want?",
            "header": "Features",
            "options": [
                {"label": "Parsing", "description": "read user dates"},
                {"label": "Formatting", "description": "locale output"},
                {"label": "Durations", "description": "humanize spans"},
            ],
            "multiSelect": True,
        },
    ]
}
PLAN = (
    "## Plan\n\n1. Add a failing test for the theme lookup\n2. Fix `load_theme`\n3. Run the suite"
)


def prompt_for(tool: Tool[Any], raw: dict[str, Any]) -> PermissionQuestion:
    parsed = tool.parse_input(raw)
    return question(
        PermissionPrompt(
            tool=tool,
            tool_name=tool.name,
            tool_use_id="t1",
            input=tool.dump_input(parsed),
            message="",
            reason=DecisionReason("tool", "needs the user"),
            suggestions=(),
            summary=tool.summary(parsed),
            interaction=tool.user_interaction(parsed),
        )
    )


def ask_prompt() -> PermissionQuestion:
    return prompt_for(AskUserQuestionTool(), QUESTIONS)


def plan_prompt() -> PermissionQuestion:
    return prompt_for(ExitPlanModeTool(), {"plan": PLAN})


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (("1", "space", "down", "down", "space", "enter"), ("dayjs", "Parsing, Durations")),
        (("down", "enter", "3", "enter"), ("luxon", "Durations")),
        (("2", "enter"), ("luxon", None)),  # nothing ticked: that question stays unanswered
    ],
)
async def test_questions_by_keys(keys: tuple[str, ...], expected: tuple[str, str | None]) -> None:
    app = make_app()
    prompt = ask_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, QuestionsScreen)
        await pilot.press(*keys)
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "allow"
        assert decision.updated_input is not None
        got = decision.updated_input["answers"]
        assert got.get("Which date library should we use?") == expected[0]
        assert got.get("Which features do you want?") == expected[1]
        assert not isinstance(app.screen, QuestionsScreen)
        # The tool reads the answers back from its approved input.
        parsed = AskUserQuestionTool().parse_input(decision.updated_input)
        assert parsed.answers == got


async def test_other_answer_and_clicks() -> None:
    app = make_app()
    prompt = ask_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.click("#option-2")  # "Other"
        await pilot.pause()
        await pilot.press(*"native Intl", "enter")
        await pilot.pause()
        await pilot.click("#option-1")  # tick Formatting
        await pilot.press("enter")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.updated_input is not None
        assert decision.updated_input["answers"] == {
            "Which date library should we use?": "native Intl",
            "Which features do you want?": "Formatting",
        }


async def test_escape_declines_and_typing_is_guarded(clock: Any) -> None:
    app = make_app(dialog_key_guard_s=0.5, clock=clock)
    prompt = ask_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press("1", "enter", "escape")  # inside the guard: nothing answers
        await pilot.pause()
        assert not prompt.resolver.is_claimed()
        clock.now += 1.0
        await pilot.press("escape")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "deny"
        assert "doesn't want to proceed" in decision.message


@pytest.mark.parametrize(
    ("keys", "mode"), [(("1",), "acceptEdits"), (("down", "enter"), "default")]
)
async def test_plan_approval_picks_the_mode(keys: tuple[str, ...], mode: str) -> None:
    app = make_app(permission_mode="plan")
    prompt = plan_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen)
        await pilot.press(*keys)
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "allow"
        assert decision.set_mode == mode
        assert app.config.permission_mode == mode
        assert app.main.status_bar.info.permission_mode == mode


async def test_keep_planning_with_feedback_by_click() -> None:
    app = make_app(permission_mode="plan")
    prompt = plan_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.click("#choice-2")
        await pilot.pause()
        await pilot.press(*"split step 2", "enter")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "deny"
        assert decision.feedback == "split step 2" and decision.message.endswith("split step 2")
        assert app.config.permission_mode == "plan"


async def test_escape_keeps_planning() -> None:
    app = make_app(permission_mode="plan")
    prompt = plan_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "deny" and not decision.feedback


def test_snapshot_questions_dialog(snap_compare: Any) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(ask_prompt())
        await scenes.settle(app, pilot)
        await pilot.press("1", "space", "down")  # second question, one ticked, cursor moved
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_snapshot_plan_dialog(snap_compare: Any) -> None:
    app = make_app(permission_mode="plan")

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(plan_prompt())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)
