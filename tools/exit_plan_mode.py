"""ExitPlanMode: in plan mode, present the plan; the user approves it and picks the mode to go on
in (default or acceptEdits), or keeps planning.

The plan travels on the permission question as a PlanApprovalRequest (tools/interaction.py). An
approval is an allow carrying `set_mode`, which the engine's prompter applies to the
session's permission context before this call runs; "keep planning" is a denial, so the model
reads Claude Code's rejection text (with the user's feedback) and plan mode stays on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, Field

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ResultView,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from tools.decisions import DecisionReason, PermissionDecision, ValidationResult
from tools.interaction import PlanApprovalRequest

NOT_IN_PLAN_MODE = (
    "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. If "
    "your plan was already approved, continue with implementation."
)
APPROVED = (
    "User has approved your plan. You can now start coding. Start with updating your todo list "
    "if applicable"
)
APPROVED_EMPTY = "User has approved exiting plan mode. You can now proceed."


class AllowedPrompt(ToolInput):
    model_config = ConfigDict(extra="ignore", frozen=True)
    tool: str = ""
    prompt: str = ""


class ExitPlanModeInput(ToolInput):
    # Claude Code's schema takes further keys (`[k: string]: unknown`); they are ignored.
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    plan: str = Field(
        description=(
            "The plan you came up with, that you want to run by the user for approval. Supports "
            "markdown. The plan should be pretty concise."
        )
    )
    allowed_prompts: list[AllowedPrompt] | None = Field(
        default=None, alias="allowedPrompts", description="Deprecated: no longer used."
    )


EXITED = "Exited plan mode"


@dataclass(frozen=True)
class PlanApproved:
    """An approved plan: the model reads `approved_text`, the screen says "Exited plan mode"
    and the plan (Claude Code's words), and a transcript keeps `{plan}` to rebuild it from."""

    plan: str

    def hook_response(self) -> dict[str, Any]:
        return {"plan": self.plan, "isAgent": False}


def approved_text(plan: str) -> str:
    if not plan.strip():
        return APPROVED_EMPTY
    return f"{APPROVED}\n\n## Approved Plan:\n{plan}"


class ExitPlanModeTool(Tool[ExitPlanModeInput]):
    name = "ExitPlanMode"
    search_hint = "present the plan for approval and leave plan mode"
    input_model = ExitPlanModeInput

    # It changes no file: plan mode must let it reach the user.
    def is_read_only(self, input: ExitPlanModeInput) -> bool:
        return True

    def summary(self, input: ExitPlanModeInput) -> str:
        first = next((line.strip() for line in input.plan.splitlines() if line.strip()), "")
        return first[:80]

    def user_interaction(self, input: ExitPlanModeInput) -> PlanApprovalRequest:
        return PlanApprovalRequest(input.plan)

    async def validate_input(
        self, input: ExitPlanModeInput, context: ToolContext
    ) -> ValidationResult:
        if context.permissions.mode() != "plan":
            return ValidationResult.failure(NOT_IN_PLAN_MODE, error_code=1)
        return ValidationResult.success()

    async def check_permissions(
        self, input: ExitPlanModeInput, context: ToolContext
    ) -> PermissionDecision:
        # Only the user approves a plan, in every mode.
        text = "leaving plan mode needs the user's approval of the plan"
        return PermissionDecision.ask("Exit plan mode?", DecisionReason("tool", text))

    def result_summary(self, data: Any) -> str:
        return EXITED if isinstance(data, PlanApproved) else ""

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, PlanApproved) and not is_error:
            return ResultView(EXITED, data.plan.strip(), own_body=True)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> PlanApproved | None:
        if isinstance(recorded, Mapping) and isinstance(recorded.get("plan"), str):
            return PlanApproved(recorded["plan"])
        return None

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, PlanApproved):
            return approved_text(data.plan)
        return super().to_result_content(data)

    async def call(
        self,
        input: ExitPlanModeInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        return ToolResult(data=PlanApproved(input.plan))
