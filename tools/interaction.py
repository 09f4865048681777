"""What a tool needs the user to answer, beyond allow or deny: a typed request on the permission
question, so the front end picks its dialog by the request's type, never by the tool's name.

A tool declares it with `Tool.user_interaction(input)`. The answer comes back through the same
PermissionDecision as any approval: the answers in `updated_input` (the call then reads them from
its input, as Claude Code's AskUserQuestion does), a mode to go on in in `set_mode`.
Where no one can answer (`lathe -p`), the request's `headless_message` is the denial the model
reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NO_USER = (
    "lathe is running without a user (-p): no one can answer {what}. Do not ask again; decide "
    "from what you know, state your assumptions, or stop and say what you need."
)

# The modes an approved plan may go on in (plan mode's own exit choices in Claude Code).
PlanExitMode = Literal["default", "acceptEdits"]
PLAN_EXIT_MODES: tuple[PlanExitMode, ...] = ("acceptEdits", "default")


@dataclass(frozen=True)
class QuestionOption:
    label: str
    description: str


@dataclass(frozen=True)
class Question:
    question: str
    header: str
    options: tuple[QuestionOption, ...]
    multi_select: bool = False


@dataclass(frozen=True)
class QuestionsRequest:
    """Multiple-choice questions; every question also takes a free-text "Other" answer.

    The answer: `updated_input` = the input plus `answers`, question text -> the chosen labels
    (joined with ", " for multi-select) or the typed text."""

    questions: tuple[Question, ...]
    headless_message: str = NO_USER.format(what="your questions")


@dataclass(frozen=True)
class PlanApprovalRequest:
    """A plan to approve. Approval is an allow with `set_mode` one of `modes`; "keep
    planning" is a deny (with the user's feedback, if any)."""

    plan: str
    modes: tuple[PlanExitMode, ...] = PLAN_EXIT_MODES
    headless_message: str = NO_USER.format(what="the plan approval, so plan mode stays on")


UserInteraction = QuestionsRequest | PlanApprovalRequest
