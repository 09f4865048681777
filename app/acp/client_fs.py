"""Read, Edit and Write through the client's fs/read_text_file and fs/write_text_file.

When the editor offers them, lathe reads what the editor has (unsaved changes included) and
writes through the editor, which updates its buffer and its file; the model sees what the user
sees. Everything else about the tools is theirs: validation, permissions, results and the
must-read-first rule. The read record holds the hash of the text the client gave, so an Edit
compares like with like (the buffer then and the buffer now). Images, PDFs and notebooks are
not text buffers: the tools read those themselves.

Why this module imports the tools' insides (tools.edit, tools.files.*, tools.read's limits): the
built-in tools do their I/O on the local disk inside `call`, and ToolContext has no file-access
seam they could go through instead, so the public API cannot send their reads and writes to the
client. The twins therefore subclass the tools (their declarations, validation, permissions and
results stay the tools') and call the tools' own helpers (replace, diff, line numbering,
staleness) around the client's I/O, so no rule is written a second time here. A file-access
seam in ToolContext would let Read, Edit and Write take the client's buffers without this
module.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tools.base import (
    CanUseTool,
    ProgressCallback,
    ReadRecord,
    ToolContext,
    ToolError,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.edit import SAME_STRINGS, EditInput, EditTool, edit_result
from tools.files.common import check_path
from tools.files.diff import FileChange, changed_line_range, snippet, unified_diff
from tools.files.lines import MAX_LINE_CHARS, TRUNCATION_MARK, format_numbered
from tools.files.paths import is_image, is_notebook, is_pdf, missing_file_message
from tools.files.readstate import staleness
from tools.files.replace import ReplaceError, replace
from tools.files.textfile import hash_bytes
from tools.read import DEFAULT_LIMIT, EMPTY_FILE, MAX_OUTPUT_CHARS, ReadInput, ReadResult, ReadTool
from tools.write import WriteInput, WriteTool

ReadText = Callable[[str], Awaitable[str]]
WriteText = Callable[[str, str], Awaitable[None]]


class ClientFiles:
    """The client's file-system methods for one session; either may be missing."""

    def __init__(self, read: ReadText | None, write: WriteText | None) -> None:
        self.read = read
        self.write = write


def _is_text_buffer(path: str) -> bool:
    return os.path.isfile(path) and not (is_image(path) or is_pdf(path) or is_notebook(path))


def _exists(path: str) -> bool:
    return os.path.exists(path)


def _is_dir(path: str) -> bool:
    return os.path.isdir(path)


def _record(
    context: ToolContext, path: str, text: str, full: bool, input: ReadInput | None = None
) -> None:
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        mtime = 0
    offset = input.offset if input is not None else None
    limit = input.limit if input is not None else None
    context.read_files.record(
        ReadRecord(path, mtime, hash_bytes(text.encode("utf-8")), full, offset, limit)
    )


def window_text(text: str, offset: int, limit: int) -> tuple[str, int, int | None, bool]:
    """Read's numbered window over a buffer: the text, lines shown, total, and whether it
    stopped for size (the same limits as a file read from disk)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it starts no new one
    total = len(lines)
    shown: list[str] = []
    chars = 0
    stopped = False
    for line in lines[offset - 1 : offset - 1 + limit]:
        line = line.removesuffix("\r")
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + TRUNCATION_MARK
        cost = len(line) + 8
        if shown and chars + cost > MAX_OUTPUT_CHARS:
            stopped = True
            break
        shown.append(line)
        chars += cost
    if not shown:
        if total == 0:
            return EMPTY_FILE, 0, total, False
        return (
            "<system-reminder>Warning: the file exists but is shorter than the provided offset "
            f"({offset}). The file has {total} line{'s' if total != 1 else ''}.</system-reminder>",
            0,
            total,
            False,
        )
    body = format_numbered(shown, offset)
    # As from disk: the total is known only when the window reached the end of the file.
    known = total if not stopped and offset - 1 + len(shown) >= total else None
    if stopped:
        next_line = offset + len(shown)
        body += (
            f"\n\n[Output stopped after line {next_line - 1} to stay under {MAX_OUTPUT_CHARS} "
            f"characters. Continue with offset={next_line}, or use Grep to find the part you need.]"
        )
    return body, len(shown), known, stopped


class ClientReadTool(ReadTool):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def call(
        self,
        input: ReadInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        if self.files.read is None or not _is_text_buffer(path):
            return await super().call(input, context, can_use_tool, parent_message, on_progress)
        try:
            text = await self.files.read(path)
        except Exception as exc:
            raise ToolError(f"Could not read {path} through the editor: {exc}") from None
        offset = max(input.offset or 1, 1)
        body, count, total, stopped = window_text(text, offset, input.limit or DEFAULT_LIMIT)
        _record(context, path, text, offset == 1 and total is not None and not stopped, input)
        return ToolResult(data=ReadResult("text", path, body, (), offset, count, total))


async def _current(files: ClientFiles, path: str) -> str:
    assert files.read is not None
    try:
        return await files.read(path)
    except Exception as exc:
        raise ToolError(f"Could not read {path} through the editor: {exc}") from None


async def _write(files: ClientFiles, context: ToolContext, path: str, text: str) -> None:
    assert files.write is not None
    try:
        await files.write(path, text)
    except Exception as exc:
        raise ToolError(f"Could not write {path} through the editor: {exc}") from None
    # Our own write: the model knows the whole file now (a second edit needs no new Read).
    _record(context, path, text, True)


def _through_client(files: ClientFiles) -> bool:
    # Edits need the current text as the editor has it, so both methods or neither.
    return files.read is not None and files.write is not None


class ClientEditTool(EditTool):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def validate_input(self, input: EditInput, context: ToolContext) -> ValidationResult:
        if not _through_client(self.files):
            return await super().validate_input(input, context)
        # The content checks run on the editor's text, in `call`; the disk may be behind it.
        if input.old_string == input.new_string:
            return ValidationResult.failure(SAME_STRINGS, error_code=1)
        path, failure = check_path(self.name, input.file_path, context, "write")
        if failure is not None:
            return failure
        if _is_dir(path):
            return ValidationResult.failure(f"{path} is a directory, not a file.", error_code=8)
        if not _exists(path) and input.old_string != "":
            return ValidationResult.failure(missing_file_message(path, context.cwd), error_code=8)
        return ValidationResult.success()

    async def call(
        self,
        input: EditInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        exists = _exists(path)
        if not _through_client(self.files) or (exists and not _is_text_buffer(path)):
            return await super().call(input, context, can_use_tool, parent_message, on_progress)
        if not exists and input.old_string != "":
            raise ToolError(missing_file_message(path, context.cwd))
        current = await _current(self.files, path) if exists else ""
        problem = staleness(context, path, current.encode("utf-8")) if exists else None
        if problem:
            raise ToolError(problem)
        try:
            result = replace(current, input.old_string, input.new_string, input.replace_all)
        except ReplaceError as exc:
            raise ToolError(str(exc)) from None
        await _write(self.files, context, path, result.text)
        before = current if exists else None
        return ToolResult(
            data=edit_result(
                path, before, result, input.replace_all, input.old_string, input.new_string
            )
        )


class ClientWriteTool(WriteTool):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def validate_input(self, input: WriteInput, context: ToolContext) -> ValidationResult:
        if not _through_client(self.files):
            return await super().validate_input(input, context)
        path, failure = check_path(self.name, input.file_path, context, "write")
        if failure is not None:
            return failure
        if _is_dir(path):
            return ValidationResult.failure(f"{path} is a directory, not a file.", error_code=8)
        return ValidationResult.success()

    async def call(
        self,
        input: WriteInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        exists = _exists(path)
        if not _through_client(self.files) or (exists and not _is_text_buffer(path)):
            return await super().call(input, context, can_use_tool, parent_message, on_progress)
        old = await _current(self.files, path) if exists else None
        if old is not None:
            problem = staleness(context, path, old.encode("utf-8"))
            if problem:
                raise ToolError(problem)
        await _write(self.files, context, path, input.content)
        diff, added, removed = unified_diff(old or "", input.content, path)
        if old is None:
            message = f"File created successfully at: {path}"
            return ToolResult(data=FileChange("create", path, diff, message, added, removed))
        first, last = changed_line_range(old, input.content)
        message = (
            f"The file {path} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n{snippet(input.content, first, last)}"
        )
        return ToolResult(data=FileChange("update", path, diff, message, added, removed))
