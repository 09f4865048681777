"""Write: create a file or replace one the model has read, atomically."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ResultView,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolPreview,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.files import textfile
from tools.files.common import PathArgument, check_path
from tools.files.diff import FileChange, changed_line_range, snippet, unified_diff
from tools.files.preview import current_file, diff_preview
from tools.files.readstate import record_written, staleness, write_journal
from tools.files.recorded import write_change
from tools.files.recorded_input import diff_counts, recorded_path
from tools.files.served import ServedError, check_write_target, served_for, write_served


class WriteInput(ToolInput):
    file_path: str = Field(
        description="The absolute path to the file to write (must be absolute, not relative)"
    )
    content: str = Field(description="The content to write to the file")


def file_state_error(path: str, context: ToolContext) -> str | None:
    """Why an existing `path` may not be overwritten now (Write and Edit share it)."""
    if os.path.isdir(path):
        return f"{path} is a directory, not a file."
    if os.path.exists(path):
        return staleness(context, path)
    return None


class WriteTool(PathArgument, Tool[WriteInput]):
    name = "Write"
    file_view = "write"
    touches_file = True
    search_hint = "create or overwrite a file"
    input_model = WriteInput
    permission_kind = "path_write"

    def summary(self, input: WriteInput) -> str:
        lines = input.content.count("\n") + (0 if input.content.endswith("\n") else 1)
        return f"{input.file_path} ({lines} line{'s' if lines != 1 else ''})"

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, FileChange):
            return ""
        if data.kind == "create":
            return f"Created with {data.added} line{'s' if data.added != 1 else ''}"
        return f"Added {data.added}, removed {data.removed} lines"

    def result_from_record(self, recorded: Any, content: str) -> FileChange | None:
        return write_change(recorded, content)

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, FileChange) and not is_error:
            summary = self.result_summary(data)
            return ResultView(summary, data.diff, "diff", change=data.file_diff())
        return super().result_view(data, is_error)

    def preview(self, input: WriteInput, context: ToolContext) -> ToolPreview | None:
        """The diff against the file as it is now (a creation when there is none)."""
        return _preview_at(context.resolve_path(input.file_path), input.content)

    def recorded_view(self, input: WriteInput, applied: bool, cwd: str) -> ResultView | None:
        """A denied write's diff against the file as it is now (the file it was to replace);
        a write that was made has no view here: what it replaced is not recorded."""
        if applied:
            return None
        diff = _preview_at(recorded_path(input.file_path, cwd), input.content).text
        added, removed = diff_counts(diff)
        return ResultView(f"Added {added}, removed {removed} lines", diff, "diff")

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, FileChange):
            return data.message
        return super().to_result_content(data)

    async def validate_input(self, input: WriteInput, context: ToolContext) -> ValidationResult:
        if served_for(context, context.resolve_path(input.file_path), "write") is not None:
            return check_write_target(self.name, input.file_path, context, must_exist=False)
        path, failure = check_path(self.name, input.file_path, context, "write")
        if failure is not None:
            return failure
        if not context.permissions.is_in_working_dirs(path):
            # Outside the working folders the permission check answers first; call() checks the
            # file then, so no answer tells whether it exists or was read.
            return ValidationResult.success()
        problem = await asyncio.to_thread(self._problem, context, path, input.content)
        if problem:
            return ValidationResult.failure(problem, error_code=7)
        return ValidationResult.success()

    @staticmethod
    def _problem(context: ToolContext, path: str, content: str) -> str | None:
        problem = file_state_error(path, context)
        if problem or not os.path.exists(path):
            return problem
        # Found out now, so the user is not asked to approve a write that cannot be done.
        try:
            old = textfile.load(path)
            if old.line_ending == "\r\n":
                content = content.replace("\r\n", "\n")
            textfile.render(old, content)
        except ValueError as exc:
            return str(exc)
        except OSError as exc:
            return f"Could not read {path}: {exc.strerror or exc}"
        return None

    async def call(
        self,
        input: WriteInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        files = served_for(context, path, "write")
        if files is not None:  # the front end's text (an editor's buffer), not the disk's
            try:
                return ToolResult(data=await write_served(files, context, path, input.content))
            except ServedError as exc:
                raise ToolError(str(exc)) from None
        try:
            change = await asyncio.to_thread(self._write, context, path, input.content)
        except PermissionError:
            raise ToolError(f"Permission denied: cannot write {path}.") from None
        except (OSError, ValueError) as exc:
            raise ToolError(f"Could not write {path}: {exc}") from None
        return ToolResult(data=change)

    def _write(self, context: ToolContext, path: str, content: str) -> FileChange:
        if os.path.isdir(path):
            raise ToolError(f"{path} is a directory, not a file.")
        old: textfile.TextFile | None = None
        if os.path.exists(path):
            old = textfile.load(path)
            # Checked again, on the bytes being replaced: the file may have changed while the
            # user looked at the approval.
            problem = staleness(context, path, old.raw)
            if problem:
                raise ToolError(problem)
        new_text = content.replace("\r\n", "\n") if old and old.line_ending == "\r\n" else content
        journal = write_journal(context)
        if old is None:
            data = textfile.encode_new(content)
            textfile.atomic_write(path, data, journal=journal)
        else:
            # Lines the new content shares with the old keep their bytes (encoding, endings).
            data = textfile.render(old, new_text)
            textfile.atomic_write(path, data, old.mode, journal=journal)
        record_written(context, path, data)
        diff, added, removed = unified_diff(old.text if old else "", new_text, path)
        if old is None:
            return FileChange(
                "create",
                path,
                diff,
                f"File created successfully at: {path}",
                added,
                removed,
                content=new_text,
            )
        first, last = changed_line_range(old.text, new_text)
        message = (
            f"The file {path} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n{snippet(new_text, first, last)}"
        )
        return FileChange(
            "update", path, diff, message, added, removed, original=old.text, content=new_text
        )


def _preview_at(path: str, content: str) -> ToolPreview:
    """The diff of writing `content` over the file as it is now (a creation when there is none)."""
    old = current_file(path)
    if old is not None and old.line_ending == "\r\n":
        content = content.replace("\r\n", "\n")
    created = old is None and not os.path.exists(path)
    return diff_preview(old.text if old else "", content, path, created=created)
