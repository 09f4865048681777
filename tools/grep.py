"""Grep: regex search of file contents on ripgrep, with a pure-Python fallback giving the same text."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, field_validator

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ReadOnlyTool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.files.common import PathArgument, check_path, readable
from tools.search import grep_py, grep_rg
from tools.search.globs import split_glob_param, type_table
from tools.search.grep_model import GrepQuery, GrepResult, OutputMode, format_hits
from tools.search.rg import use_rg

DEFAULT_HEAD_LIMIT = 250
# More context than this is a whole file; Read does that better.
MAX_CONTEXT = 10_000


def _none_like(value: Any) -> Any:
    if isinstance(value, str) and value.strip() in ("", "undefined", "null", "None"):
        return None
    return value


def _missing(path: str, cwd: str) -> str:
    return f"Path does not exist: {path}. Note: your current working directory is {cwd}."


def _exists(path: str) -> bool:
    return os.path.exists(path)


class GrepInput(ToolInput):
    pattern: str = Field(
        description="The regular expression pattern to search for in file contents"
    )
    path: str | None = Field(
        default=None,
        description="File or directory to search in (rg PATH). Defaults to current working "
        "directory.",
    )
    glob: str | None = Field(
        default=None,
        description='Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob',
    )
    file_type: str | None = Field(
        default=None,
        alias="type",
        description="File type to search (rg --type). Common types: js, py, rust, go, java, etc. "
        "More efficient than glob for standard file types.",
    )
    output_mode: OutputMode | None = Field(
        default=None,
        description='Output mode: "content" shows matching lines (supports -A/-B/-C context, -n '
        'line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), '
        '"count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
    )
    case_insensitive: bool | None = Field(
        default=None, alias="-i", description="Case insensitive search (rg -i)"
    )
    line_numbers: bool | None = Field(
        default=None,
        alias="-n",
        description='Show line numbers in output (rg -n). Requires output_mode: "content", '
        "ignored otherwise. Defaults to true.",
    )
    after: int | None = Field(
        default=None,
        alias="-A",
        ge=0,
        description="Number of lines to show after each match (rg -A). Requires output_mode: "
        '"content", ignored otherwise.',
    )
    before: int | None = Field(
        default=None,
        alias="-B",
        ge=0,
        description="Number of lines to show before each match (rg -B). Requires output_mode: "
        '"content", ignored otherwise.',
    )
    context: int | None = Field(
        default=None,
        alias="-C",
        ge=0,
        description="Number of lines to show before and after each match (rg -C). Requires "
        'output_mode: "content", ignored otherwise.',
    )
    multiline: bool | None = Field(
        default=None,
        description="Enable multiline mode where . matches newlines and patterns can span lines "
        "(rg -U --multiline-dotall). Default: false.",
    )
    head_limit: int | None = Field(
        default=None,
        ge=0,
        description="Limit output to the first N lines/entries, like `| head -N`. Works across all "
        "output modes. Defaults to 250; 0 means unlimited.",
    )
    offset: int | None = Field(
        default=None,
        ge=0,
        description="Skip the first N lines/entries before applying head_limit, like "
        "`| tail -n +N | head -N`. Defaults to 0.",
    )

    _nones = field_validator("path", "glob", "file_type", mode="before")(_none_like)


class GrepTool(PathArgument, ReadOnlyTool[GrepInput]):
    name = "Grep"
    refetchable = True
    search_hint = "search file contents regex ripgrep"
    input_model = GrepInput
    permission_kind = "path_read"
    path_reach = "contents"
    subject_field = "path"

    def interrupt_behavior(self) -> Literal["cancel", "block"]:
        return "cancel"

    def summary(self, input: GrepInput) -> str:
        where = f" in {input.path}" if input.path else ""
        return f'"{input.pattern}"{where}'

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, GrepResult):
            return ""
        if data.mode == "content":
            return f"Found {data.total} line{'s' if data.total != 1 else ''}"
        if data.mode == "count":
            return f"Found {data.num_matches} matches in {data.num_files} files"
        return f"Found {data.total} file{'s' if data.total != 1 else ''}"

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, GrepResult):
            return data.text()
        return super().to_result_content(data)

    async def validate_input(self, input: GrepInput, context: ToolContext) -> ValidationResult:
        path, failure = check_path(self.name, input.path or context.cwd, context, "read")
        if failure is not None:
            return failure
        # Outside the working folders the permission check answers first (call() says it then),
        # so the answer never tells what exists there.
        if context.permissions.is_in_working_dirs(path) and not _exists(path):
            return ValidationResult.failure(_missing(path, context.cwd), error_code=2)
        if input.file_type is not None and input.file_type not in type_table():
            return ValidationResult.failure(
                f"Unknown file type {input.file_type!r} for `type`. Common types: py, js, ts, "
                "rust, go, java, c, cpp, md, json, yaml, toml, html, css, sh; or use `glob`.",
                error_code=3,
            )
        return ValidationResult.success()

    def query(self, input: GrepInput, context: ToolContext) -> GrepQuery:
        around = min(input.context or 0, MAX_CONTEXT)
        before = around if input.before is None else min(input.before, MAX_CONTEXT)
        after = around if input.after is None else min(input.after, MAX_CONTEXT)
        return GrepQuery(
            pattern=input.pattern,
            root=context.resolve_path(input.path or context.cwd),
            mode=input.output_mode or "files_with_matches",
            globs=tuple(split_glob_param(input.glob or "")),
            file_type=input.file_type,
            ignore_case=bool(input.case_insensitive),
            line_numbers=input.line_numbers is not False,
            before=before,
            after=after,
            multiline=bool(input.multiline),
        )

    async def call(
        self,
        input: GrepInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        query = self.query(input, context)
        if not _exists(query.root):
            raise ToolError(_missing(query.root, context.cwd))
        rg = use_rg(context)
        if rg is not None:
            hits, partial = await grep_rg.search(rg, query, context.abort)
            backend = "rg"
        else:
            abort = context.abort
            hits = await asyncio.to_thread(grep_py.search, query, lambda: abort.aborted)
            partial, backend = False, "python"
        # Files that Read deny rules cover (`.env`) never show up in results.
        allowed = set(readable([h.path for h in hits], context))
        hits = [h for h in hits if h.path in allowed]
        head_limit = DEFAULT_HEAD_LIMIT if input.head_limit is None else input.head_limit
        result = await asyncio.to_thread(
            format_hits, query, hits, head_limit, input.offset or 0, partial, backend
        )
        return ToolResult(data=result)
