"""TaskStop (formerly KillShell): stop a background shell and everything it started."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

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
from tools.process.background import BackgroundShell


class TaskStopInput(ToolInput):
    shell_id: str = Field(description="The ID of the background shell to stop")


class TaskStopTool(Tool[TaskStopInput]):
    name = "TaskStop"
    aliases = ("KillShell",)
    search_hint = "kill stop terminate background shell task process"
    input_model = TaskStopInput

    def summary(self, input: TaskStopInput) -> str:
        return input.shell_id

    async def check_permissions(
        self, input: TaskStopInput, context: ToolContext
    ) -> PermissionDecision:
        # It can only end what this session started in the background (ids come from Bash).
        return PermissionDecision.allow(
            DecisionReason("tool", "TaskStop only stops this session's own background shells")
        )

    async def validate_input(self, input: TaskStopInput, context: ToolContext) -> ValidationResult:
        if context.background.get(input.shell_id) is None:
            known = [t.id for t in context.background.all()]
            hint = f" Known: {', '.join(known)}." if known else ""
            return ValidationResult.failure(
                f"No background shell found with ID: {input.shell_id}.{hint}", 1
            )
        return ValidationResult.success()

    async def call(
        self,
        input: TaskStopInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        task = context.background.get(input.shell_id)
        if task is None:
            return ToolResult(f"No background shell found with ID: {input.shell_id}", is_error=True)
        command = task.command if isinstance(task, BackgroundShell) else task.description
        if task.status not in ("running", "starting"):
            return ToolResult(
                {
                    "message": f"Shell {input.shell_id} is not running (status: {task.status}); "
                    "nothing to stop.",
                    "shell_id": input.shell_id,
                    "command": command,
                    "status": task.status,
                }
            )
        await task.stop()
        return ToolResult(
            {
                "message": f"Successfully stopped shell: {input.shell_id} ({task.description})",
                "shell_id": input.shell_id,
                "command": command,
                "status": "stopped",
            }
        )

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, dict) and "message" in data:
            return str(data["message"])
        return super().to_result_content(data)

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        """What was stopped, in Claude Code's words ("sleep 300 · stopped"), not the message
        written for the model."""
        if isinstance(data, dict) and not is_error and "message" in data:
            return ResultView(_stopped_line(data), "", own_body=True)
        return super().result_view(data, is_error)

    def result_from_record(self, recorded: Any, content: str) -> dict[str, Any] | None:
        """The transcript's `toolUseResult` is this data as it was (a dict with `message`)."""
        if isinstance(recorded, Mapping) and isinstance(recorded.get("message"), str):
            return dict(recorded)
        return None


def _stopped_line(data: Mapping[str, Any]) -> str:
    what = str(data.get("command") or data.get("shell_id") or "")
    status = str(data.get("status") or "stopped")
    said = "stopped" if status == "stopped" else f"not running ({status})"
    return f"{what} · {said}" if what else said
