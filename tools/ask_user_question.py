"""AskUserQuestion: multiple-choice questions for the user, answered in a dialog.

The questions travel on the permission question as a QuestionsRequest (tools/interaction.py); the
dialog's answer comes back as `answers` in the approved input, and the tool_result says it in
Claude Code's words. The model never sets `answers` itself (an internal field, stripped first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, model_validator

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ResultView,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
    api_schema,
)
from tools.decisions import DecisionReason, PermissionDecision
from tools.interaction import Question, QuestionOption, QuestionsRequest

NOT_ANSWERED = "The user did not answer the questions."
MULTI_JOIN = ", "


class OptionInput(ToolInput):
    label: str = Field(
        description=(
            "The display text for this option that the user will see and select. Should be "
            "concise (1-5 words) and clearly describe the choice."
        )
    )
    description: str = Field(
        description=(
            "Explanation of what this option means or what will happen if chosen. Useful for "
            "providing context about trade-offs or implications."
        )
    )
    preview: str | None = Field(
        default=None,
        description="Optional preview content rendered when this option is focused.",
    )


class QuestionInput(ToolInput):
    question: str = Field(
        description=(
            "The complete question to ask the user. Should be clear, specific, and end with a "
            'question mark. Example: "Which library should we use for date formatting?" If '
            'multiSelect is true, phrase it accordingly, e.g. "Which features do you want to '
            'enable?"'
        )
    )
    header: str = Field(
        description=(
            'Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", '
            '"Library", "Approach".'
        )
    )
    options: list[OptionInput] = Field(
        min_length=2,
        max_length=4,
        description=(
            "The available choices for this question. Must have 2-4 options. Each option should "
            "be a distinct, mutually exclusive choice (unless multiSelect is enabled). There "
            "should be no 'Other' option, that will be provided automatically."
        ),
    )
    multi_select: bool = Field(
        alias="multiSelect",
        description=(
            "Set to true to allow the user to select multiple options instead of just one. Use "
            "when choices are not mutually exclusive."
        ),
    )


class AskUserQuestionInput(ToolInput):
    questions: list[QuestionInput] = Field(
        min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)"
    )
    # Set by the dialog on approval (question text -> answer), never by the model.
    answers: dict[str, str] | None = Field(default=None)

    @model_validator(mode="after")
    def _distinct(self) -> AskUserQuestionInput:
        texts = [q.question for q in self.questions]
        if len(set(texts)) != len(texts):
            raise ValueError("Question texts must be unique")
        for q in self.questions:
            labels = [o.label for o in q.options]
            if len(set(labels)) != len(labels):
                raise ValueError(f'Option labels must be unique within question "{q.question}"')
        return self


def result_text(questions: list[QuestionInput], answers: Mapping[str, str]) -> str:
    """Claude Code's tool_result: plain when every answer is one of the offered labels, with a
    warning to read carefully when the user typed their own ("Other")."""
    parts: list[str] = []
    only_labels = True
    for q in questions:
        answer = answers.get(q.question, "")
        if not answer:
            continue
        parts.append(f'"{q.question}"="{answer}"')
        labels = {o.label for o in q.options}
        chosen = answer.split(MULTI_JOIN) if q.multi_select else [answer]
        if answer not in labels and not all(c in labels for c in chosen):
            only_labels = False
    if not parts:
        return NOT_ANSWERED
    said = ", ".join(parts)
    if only_labels:
        return f"Your questions have been answered: {said}. You can now continue with these answers in mind."
    return (
        f"The user answered: {said}. Read the answers carefully \u2014 they may request "
        "clarification, changes, or that you not proceed \u2014 and follow what they actually say."
    )


@dataclass(frozen=True)
class Answered:
    """The user's answers, question by question, in the questions' order: the model reads
    `result_text`, the screen "· question → answer" lines, and a transcript keeps Claude Code's
    `{questions, answers}` to rebuild them from."""

    questions: tuple[QuestionInput, ...]
    answers: dict[str, str] = field(default_factory=dict)

    def hook_response(self) -> dict[str, Any]:
        return {
            "questions": [q.model_dump(by_alias=True, exclude_none=True) for q in self.questions],
            "answers": dict(self.answers),
        }

    def lines(self) -> list[tuple[str, str]]:
        return [
            (q.question, self.answers[q.question])
            for q in self.questions
            if self.answers.get(q.question)
        ]


def answered_view(data: Answered) -> ResultView:
    lines = data.lines()
    if not lines:
        return ResultView("No answer", own_body=True)
    count = f"{len(lines)} question{'s' if len(lines) != 1 else ''}"
    body = "\n".join(f"· {question} → {answer}" for question, answer in lines)
    return ResultView(f"You answered {count}", body, own_body=True)


class AskUserQuestionTool(Tool[AskUserQuestionInput]):
    name = "AskUserQuestion"
    search_hint = "ask the user a multiple choice question"
    input_model = AskUserQuestionInput
    internal_fields = ("answers",)

    def input_schema(self) -> dict[str, Any]:
        schema = dict(api_schema(AskUserQuestionInput))
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k != "answers"}
        return schema

    # It only asks: nothing on disk changes, so plan mode lets it through to the user.
    def is_read_only(self, input: AskUserQuestionInput) -> bool:
        return True

    def summary(self, input: AskUserQuestionInput) -> str:
        return "; ".join(q.header for q in input.questions)

    def user_interaction(self, input: AskUserQuestionInput) -> QuestionsRequest:
        return QuestionsRequest(
            tuple(
                Question(
                    q.question,
                    q.header,
                    tuple(QuestionOption(o.label, o.description) for o in q.options),
                    q.multi_select,
                )
                for q in input.questions
            )
        )

    async def check_permissions(
        self, input: AskUserQuestionInput, context: ToolContext
    ) -> PermissionDecision:
        # Always the user: in every mode the answer is theirs to give (Claude Code: "ask").
        text = "AskUserQuestion needs the user to answer its questions"
        return PermissionDecision.ask("Answer questions?", DecisionReason("tool", text))

    def result_summary(self, data: Any) -> str:
        return answered_view(data).summary if isinstance(data, Answered) else ""

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, Answered) and not is_error:
            return answered_view(data)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> Answered | None:
        if not isinstance(recorded, Mapping):
            return None
        questions, answers = recorded.get("questions"), recorded.get("answers")
        if not isinstance(questions, list) or not isinstance(answers, Mapping):
            return None
        parsed = tuple(QuestionInput.model_validate(q) for q in questions)
        return Answered(parsed, {str(k): str(v) for k, v in answers.items()})

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, Answered):
            return result_text(list(data.questions), data.answers)
        return super().to_result_content(data)

    async def call(
        self,
        input: AskUserQuestionInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        return ToolResult(data=Answered(tuple(input.questions), dict(input.answers or {})))
