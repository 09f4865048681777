"""AskUserQuestion and ExitPlanMode as tools: Claude Code's inputs, the typed requests they
declare, their permission opinion and their result texts (Claude Code 2.1.332's words)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_calls import call_tool_text, make_context
from tools.ask_user_question import NOT_ANSWERED, AskUserQuestionTool, result_text
from tools.base import InputError
from tools.exit_plan_mode import APPROVED, APPROVED_EMPTY, NOT_IN_PLAN_MODE, ExitPlanModeTool
from tools.interaction import PlanApprovalRequest, QuestionsRequest

ASK = AskUserQuestionTool()
PLAN = ExitPlanModeTool()


def questions(multi: bool = False) -> dict[str, Any]:
    return {
        "questions": [
            {
                "question": "Which library?",
                "header": "Library",
                "options": [
                    {"label": "dayjs", "description": "small"},
                    {"label": "luxon", "description": "complete"},
                ],
                "multiSelect": multi,
            },
            {
                "question": "Which features?",
                "header": "Features",
                "options": [
                    {"label": "A", "description": "a"},
                    {"label": "B", "description": "b"},
                    {"label": "C", "description": "c"},
                ],
                "multiSelect": True,
            },
        ]
    }


def test_ask_schema_is_claude_codes_and_hides_answers() -> None:
    schema = ASK.input_schema()
    assert list(schema["properties"]) == ["questions"]
    q = schema["$defs"]["QuestionInput"]
    assert set(q["properties"]) == {"question", "header", "options", "multiSelect"}
    assert q["properties"]["options"]["minItems"] == 2
    assert q["properties"]["options"]["maxItems"] == 4
    assert "answers" in ASK.internal_fields  # the pipeline strips it from the model's input


def test_ask_declares_its_questions() -> None:
    request = ASK.user_interaction(ASK.parse_input(questions()))
    assert isinstance(request, QuestionsRequest)
    assert [q.header for q in request.questions] == ["Library", "Features"]
    assert request.questions[1].multi_select and not request.questions[0].multi_select
    assert [o.label for o in request.questions[0].options] == ["dayjs", "luxon"]
    assert "no one can answer" in request.headless_message


def test_ask_refuses_bad_input() -> None:
    raw = questions()
    raw["questions"][0]["options"] = raw["questions"][0]["options"][:1]
    with pytest.raises(InputError, match="InputValidationError"):
        ASK.parse_input(raw)
    dup = questions()
    dup["questions"][1]["question"] = "Which library?"
    with pytest.raises(InputError, match="unique"):
        ASK.parse_input(dup)


async def test_ask_always_asks_and_is_read_only(tmp_path: Path) -> None:
    parsed = ASK.parse_input(questions())
    decision = await ASK.check_permissions(parsed, make_context(tmp_path))
    assert decision.behavior == "ask"
    assert ASK.is_read_only(parsed)  # plan mode lets it reach the user


async def test_ask_result_texts(tmp_path: Path) -> None:
    raw = {**questions(), "answers": {"Which library?": "dayjs", "Which features?": "A, C"}}
    kind, text = await call_tool_text(ASK, raw, make_context(tmp_path))
    assert (kind, text) == (
        "ok",
        'Your questions have been answered: "Which library?"="dayjs", "Which features?"="A, C". '
        "You can now continue with these answers in mind.",
    )
    parsed = ASK.parse_input(questions())
    typed = result_text(parsed.questions, {"Which library?": "neither, use Intl"})
    assert typed.startswith('The user answered: "Which library?"="neither, use Intl". Read the')
    assert result_text(parsed.questions, {}) == NOT_ANSWERED


async def test_exit_plan_mode_outside_plan_mode_fails(tmp_path: Path) -> None:
    kind, text = await call_tool_text(PLAN, {"plan": "1. x"}, make_context(tmp_path))
    assert (kind, text) == ("invalid", NOT_IN_PLAN_MODE)


class PlanModeView:
    def check_path(self, tool_name: str, path: str, access: str) -> Any:
        from tools.decisions import PermissionDecision

        return PermissionDecision.passthrough()

    def is_in_working_dirs(self, path: str) -> bool:
        return True

    def mode(self) -> str:
        return "plan"


async def test_exit_plan_mode_in_plan_mode(tmp_path: Path) -> None:
    from dataclasses import replace

    context = replace(make_context(tmp_path), permissions=PlanModeView())
    raw = {
        "plan": "1. Add the test\n2. Fix it",
        "allowedPrompts": [{"tool": "Bash", "prompt": "x"}],
    }
    kind, text = await call_tool_text(PLAN, raw, context)
    assert (kind, text) == ("ok", f"{APPROVED}\n\n## Approved Plan:\n1. Add the test\n2. Fix it")
    assert (await call_tool_text(PLAN, {"plan": " "}, context)) == ("ok", APPROVED_EMPTY)
    parsed = PLAN.parse_input(raw)
    request = PLAN.user_interaction(parsed)
    assert isinstance(request, PlanApprovalRequest) and request.modes == ("acceptEdits", "default")
    assert (await PLAN.check_permissions(parsed, context)).behavior == "ask"
    assert PLAN.is_read_only(parsed)
