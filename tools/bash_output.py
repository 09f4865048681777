"""BashOutput: the new output of a background shell since the last read, with its status."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from tools.base import (
    CanUseTool,
    InterruptBehavior,
    ProgressCallback,
    ReadOnlyTool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from tools.decisions import DecisionReason, PermissionDecision, ValidationResult
from tools.process.background import BackgroundShell, ShellRead


class BashOutputInput(ToolInput):
    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        default=None,
        description=(
            "Optional regular expression to filter the output lines. Only lines matching this "
            "regex are included in the result. Lines that do not match are no longer available "
            "to read."
        ),
    )


def format_read(read: ShellRead) -> str:
    parts = [f"<status>{read.status}</status>"]
    if read.exit_code is not None:
        parts.append(f"<exit_code>{read.exit_code}</exit_code>")
    for name, text, omitted in (
        ("stdout", read.stdout, read.stdout_omitted),
        ("stderr", read.stderr, read.stderr_omitted),
    ):
        if omitted:
            text = f"[{omitted} earlier characters omitted]\n{text}"
        if text:
            parts.append(f"<{name}>\n{text.rstrip()}\n</{name}>")
    parts.extend(f"<notice>{note}</notice>" for note in read.log_notes)
    if read.filtered_out:
        parts.append(f"<filtered_lines>{read.filtered_out}</filtered_lines>")
    if not (read.stdout or read.stderr):
        parts.append("(No new output)")
    parts.append(f"<timestamp>{datetime.now(UTC).isoformat(timespec='seconds')}</timestamp>")
    return "\n\n".join(parts)


class BashOutputTool(ReadOnlyTool[BashOutputInput]):
    name = "BashOutput"
    refetchable = True
    search_hint = "read background shell output logs status"
    input_model = BashOutputInput

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def summary(self, input: BashOutputInput) -> str:
        return input.bash_id

    async def check_permissions(
        self, input: BashOutputInput, context: ToolContext
    ) -> PermissionDecision:
        # Reading what a shell the model already ran has printed touches nothing new.
        return PermissionDecision.allow(
            DecisionReason("tool", "BashOutput only reads a background shell's output")
        )

    async def validate_input(
        self, input: BashOutputInput, context: ToolContext
    ) -> ValidationResult:
        if input.filter:
            try:
                re.compile(input.filter)
            except re.error as exc:
                return ValidationResult.failure(
                    f"Invalid regular expression in filter: {input.filter!r}: {exc}", 1
                )
        if context.background.get(input.bash_id) is None:
            return ValidationResult.failure(_missing(input.bash_id, context), 2)
        return ValidationResult.success()

    async def call(
        self,
        input: BashOutputInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        task = context.background.get(input.bash_id)
        if not isinstance(task, BackgroundShell):
            return ToolResult(_missing(input.bash_id, context), is_error=True)
        pattern = re.compile(input.filter) if input.filter else None
        return ToolResult(format_read(task.read_new(pattern)))


def _missing(shell_id: str, context: ToolContext) -> str:
    known = [t.id for t in context.background.all() if isinstance(t, BackgroundShell)]
    hint = f" Known shells: {', '.join(known)}." if known else " No background shells exist."
    return f"No shell found with ID: {shell_id}.{hint}"
