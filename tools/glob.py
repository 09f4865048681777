"""Glob: find files by name pattern, newest first, respecting .gitignore."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, field_validator

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ReadOnlyTool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.files.common import PathArgument, check_path, readable
from tools.search.glob_files import glob_python, glob_rg, split_pattern
from tools.search.rg import use_rg

MAX_RESULTS = 100
TRUNCATED_NOTE = "(Results are truncated. Consider using a more specific path or pattern.)"


def _none_like(value: Any) -> Any:
    # Models write "undefined" or "null" for a parameter they mean to leave out.
    if isinstance(value, str) and value.strip() in ("", "undefined", "null", "None"):
        return None
    return value


def _directory_problem(path: str, cwd: str) -> str | None:
    if not os.path.exists(path):
        return f"Directory does not exist: {path}. Note: your current working directory is {cwd}."
    if not os.path.isdir(path):
        return f"Path is not a directory: {path}. Glob searches a directory; use Read for a file."
    return None


class GlobInput(ToolInput):
    pattern: str = Field(description="The glob pattern to match files against")
    path: str | None = Field(
        default=None,
        description="The directory to search in. If not specified, the current working "
        "directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT "
        'enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid '
        "directory path if provided.",
    )

    _path_none = field_validator("path", mode="before")(_none_like)


@dataclass(frozen=True)
class GlobResult:
    filenames: tuple[str, ...]
    num_files: int
    truncated: bool
    duration_ms: int

    def text(self) -> str:
        if not self.filenames:
            return "No files found"
        body = "\n".join(self.filenames)
        return body + ("\n" + TRUNCATED_NOTE if self.truncated else "")


class GlobTool(PathArgument, ReadOnlyTool[GlobInput]):
    name = "Glob"
    refetchable = True
    search_hint = "find files by name pattern wildcard"
    input_model = GlobInput
    permission_kind = "path_read"
    path_reach = "names"
    subject_field = "path"

    def interrupt_behavior(self) -> Literal["cancel", "block"]:
        return "cancel"

    def permission_path(self, input: GlobInput, subject: str) -> str:
        # What call() lists: the pattern's literal leading folders joined to `path`.
        return split_pattern(input.pattern, subject).root

    def summary(self, input: GlobInput) -> str:
        return f'"{input.pattern}"' + (f" in {input.path}" if input.path else "")

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, GlobResult):
            return ""
        more = "+" if data.truncated else ""
        return f"Found {data.num_files}{more} file{'s' if data.num_files != 1 else ''}"

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, GlobResult):
            return data.text()
        return super().to_result_content(data)

    async def validate_input(self, input: GlobInput, context: ToolContext) -> ValidationResult:
        if not input.pattern.strip():
            return ValidationResult.failure("The pattern must not be empty.", error_code=1)
        path, failure = check_path(self.name, input.path or context.cwd, context, "read")
        if failure is not None:
            return failure
        root = split_pattern(input.pattern, path).root
        if root != path:
            root, failure = check_path(self.name, root, context, "read")
            if failure is not None:
                return failure
        if not context.permissions.is_in_working_dirs(root):
            # Outside: the permission check answers first, so no answer tells what exists there.
            return ValidationResult.success()
        problem = _directory_problem(path, context.cwd)
        if problem:
            return ValidationResult.failure(problem, error_code=2)
        return ValidationResult.success()

    async def call(
        self,
        input: GlobInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        started = time.monotonic()
        query = split_pattern(input.pattern, context.resolve_path(input.path or context.cwd))
        if _directory_problem(query.root, context.cwd):
            return ToolResult(data=GlobResult((), 0, False, 0))
        rg = use_rg(context)
        if rg is not None:
            paths = await glob_rg(rg, query, context.abort)
        else:
            abort = context.abort
            paths = await asyncio.to_thread(glob_python, query, lambda: abort.aborted)
        # Files that Read deny rules cover are not listed either.
        paths = readable(paths, context)
        shown = tuple(paths[:MAX_RESULTS])
        elapsed = int((time.monotonic() - started) * 1000)
        return ToolResult(data=GlobResult(shown, len(paths), len(paths) > MAX_RESULTS, elapsed))
