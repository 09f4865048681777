"""Edit: replace an exact string in a file the model has read, atomically."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from tools.base import (
    CallLabel,
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
from tools.files.paths import missing_file_message
from tools.files.preview import current_file, diff_preview
from tools.files.readstate import record_written, staleness, write_journal
from tools.files.recorded import edit_change
from tools.files.recorded_input import diff_counts, recorded_edit_diff, recorded_path
from tools.files.replace import ReplaceError, Replacement, replace
from tools.files.served import ServedError, check_write_target, edit_served, served_for

SAME_STRINGS = "No changes to make: old_string and new_string are exactly the same."


class EditInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(
        description="The text to replace it with (must be different from old_string)"
    )
    replace_all: bool = Field(
        default=False, description="Replace all occurrences of old_string (default false)"
    )


class EditTool(PathArgument, Tool[EditInput]):
    name = "Edit"
    file_view = "write"
    touches_file = True
    search_hint = "modify file replace string"
    input_model = EditInput
    permission_kind = "path_write"

    def summary(self, input: EditInput) -> str:
        if input.old_string == "":
            return f"{input.file_path} (create)"
        return input.file_path + (" (replace all)" if input.replace_all else "")

    def label(self, input: EditInput) -> CallLabel:
        """The path, and the lines the edit adds and removes as its strings say (a queued or
        waiting call's panel row and block show it before the file is read); a replace-all's
        count depends on the file, so it has none until its diff is made."""
        if input.replace_all:
            return CallLabel(self.summary(input))
        _, added, removed = unified_diff(input.old_string, input.new_string, input.file_path)
        return CallLabel(self.summary(input), stat=f"+{added} -{removed}")

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, FileChange):
            return ""
        return f"Added {data.added}, removed {data.removed} lines"

    def result_from_record(self, recorded: Any, content: str) -> FileChange | None:
        return edit_change(recorded, content)

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, FileChange) and not is_error:
            summary = self.result_summary(data)
            return ResultView(summary, data.diff, "diff", change=data.file_diff())
        return super().result_view(data, is_error)

    def preview(self, input: EditInput, context: ToolContext) -> ToolPreview | None:
        """The diff this edit makes to the file as it is now; the strings alone when it cannot
        apply (missing file, string not found): the call will then fail and say why."""
        return self._preview_at(context.resolve_path(input.file_path), input)

    def _preview_at(self, path: str, input: EditInput) -> ToolPreview:
        current = current_file(path)
        created = current is None and not os.path.exists(path)
        if created:
            current = textfile.TextFile("", "utf-8", "\n")
        if current is not None:
            try:
                new = self._replace(current, input).text
                return diff_preview(current.text, new, path, created=created)
            except ReplaceError:
                pass
        # Not the whole file (too large to read for a preview, or the string is not on disk, as
        # when an editor's unsaved buffer holds it): the strings alone, as Claude Code's ACP
        # adapter sends them.
        return diff_preview(input.old_string, input.new_string, path)

    def recorded_view(self, input: EditInput, applied: bool, cwd: str) -> ResultView | None:
        """The diff as the live call showed it (tools/files/recorded.py): made, or denied."""
        path = recorded_path(input.file_path, cwd)
        if input.replace_all and not applied:
            diff = self._preview_at(path, input).text  # every copy, as its question showed
        else:
            diff = recorded_edit_diff(path, input.old_string, input.new_string, applied)
        added, removed = diff_counts(diff)
        return ResultView(f"Added {added}, removed {removed} lines", diff, "diff")

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, FileChange):
            return data.message
        return super().to_result_content(data)

    async def validate_input(self, input: EditInput, context: ToolContext) -> ValidationResult:
        if input.old_string == input.new_string:
            return ValidationResult.failure(SAME_STRINGS, error_code=1)
        if served_for(context, context.resolve_path(input.file_path), "write") is not None:
            # The content checks run on the front end's text, in `call`; the disk may be behind.
            must_exist = input.old_string != ""
            return check_write_target(self.name, input.file_path, context, must_exist)
        path, failure = check_path(self.name, input.file_path, context, "write")
        if failure is not None:
            return failure
        if not context.permissions.is_in_working_dirs(path):
            # Outside the working folders the permission check answers first; call() checks the
            # file then, so no answer tells whether it exists or was read.
            return ValidationResult.success()
        problem = await asyncio.to_thread(self._problem, context, path, input)
        if problem:
            return ValidationResult.failure(problem, error_code=8)
        return ValidationResult.success()

    def _problem(self, context: ToolContext, path: str, input: EditInput) -> str | None:
        if not os.path.exists(path):
            if input.old_string == "":
                return None
            return missing_file_message(path, context.cwd)
        if os.path.isdir(path):
            return f"{path} is a directory, not a file."
        # Found out now, so the user is not asked to approve an edit that cannot apply.
        try:
            current = textfile.load(path)
            problem = staleness(context, path, current.raw)
            if problem:
                return problem
            textfile.render(current, self._replace(current, input).text)
        except (ReplaceError, ValueError) as exc:
            return str(exc)
        except OSError as exc:
            return f"Could not read {path}: {exc.strerror or exc}"
        return None

    @staticmethod
    def _replace(current: textfile.TextFile, input: EditInput) -> Replacement:
        old, new = input.old_string, input.new_string
        if current.line_ending == "\r\n":
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        return replace(current.text, old, new, input.replace_all)

    async def call(
        self,
        input: EditInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        files = served_for(context, path, "write")
        if files is not None:  # the front end's text (an editor's buffer), not the disk's
            try:
                before, result = await edit_served(
                    files, context, path, input.old_string, input.new_string, input.replace_all
                )
            except ServedError as exc:
                raise ToolError(str(exc)) from None
            return ToolResult(
                data=edit_result(
                    path, before, result, input.replace_all, input.old_string, input.new_string
                )
            )
        try:
            change = await asyncio.to_thread(self._edit, context, path, input)
        except ReplaceError as exc:
            raise ToolError(str(exc)) from None
        except PermissionError:
            raise ToolError(f"Permission denied: cannot write {path}.") from None
        except (OSError, ValueError) as exc:
            raise ToolError(f"Could not edit {path}: {exc}") from None
        return ToolResult(data=change)

    def _edit(self, context: ToolContext, path: str, input: EditInput) -> FileChange:
        exists = os.path.exists(path)
        if not exists and input.old_string != "":
            raise ToolError(missing_file_message(path, context.cwd))
        if os.path.isdir(path):
            raise ToolError(f"{path} is a directory, not a file.")
        current = textfile.load(path) if exists else textfile.TextFile("", "utf-8", "\n")
        # Checked again, on the very bytes being edited: the file may have changed while the user
        # looked at the approval.
        problem = staleness(context, path, current.raw) if exists else None
        if problem:
            raise ToolError(problem)
        result = self._replace(current, input)
        data = textfile.render(current, result.text)
        textfile.atomic_write(path, data, current.mode, journal=write_journal(context))
        record_written(context, path, data)
        return edit_result(
            path,
            current.text if exists else None,
            result,
            input.replace_all,
            input.old_string,
            input.new_string,
        )


def edit_result(
    path: str,
    before: str | None,
    result: Replacement,
    replace_all: bool,
    old_string: str = "",
    new_string: str = "",
) -> FileChange:
    """What an edit reports: a creation when there was no file (`before` None), else the update
    with a numbered snippet of the changed lines. Shared by every Edit (local or an editor's)."""
    diff, added, removed = unified_diff(before or "", result.text, path)
    if before is None:
        created = FileChange(
            "create", path, diff, f"File created successfully at: {path}", added, removed
        )
        return _for_hooks(created, before, result.text, replace_all, old_string, new_string)
    first, last = changed_line_range(before, result.text)
    head = f"The file {path} has been updated."
    if replace_all:
        head += (
            f" All {result.count} occurrence{'s' if result.count != 1 else ''} of the string "
            "were replaced."
        )
    message = (
        f"{head} Here's the result of running `cat -n` on a snippet of the edited file:\n"
        f"{snippet(result.text, first, last)}"
    )
    updated = FileChange("update", path, diff, message, added, removed, result.count)
    return _for_hooks(updated, before, result.text, replace_all, old_string, new_string)


def _for_hooks(
    change: FileChange,
    before: str | None,
    after: str,
    replace_all: bool,
    old_string: str,
    new_string: str,
) -> FileChange:
    """The change with what Claude Code's Edit `tool_response` holds (FileChange.hook_response)."""
    return dataclasses.replace(
        change,
        original=before,
        content=after,
        edit=True,
        old_string=old_string,
        new_string=new_string,
        replace_all=replace_all,
    )
