"""Read, Edit and Write over a front end's text files (ToolContext.text_files) instead of the disk.

The tools call these for a file their context's TextFiles serves (ACP: the editor's buffer, what
the user sees, unsaved changes included); the rules are the tools' own: Read's window and limits,
Edit's replacement, the must-read-first and staleness checks, the same result data. The read
record holds the hash of the text the front end gave, so an Edit compares like with like (the
buffer then and the buffer now).
"""

from __future__ import annotations

import os

from tools.context import ReadRecord, TextFiles, ToolContext
from tools.decisions import ValidationResult
from tools.files.common import check_path
from tools.files.diff import FileChange, changed_line_range, snippet, unified_diff
from tools.files.lines import MAX_LINE_CHARS, TRUNCATION_MARK, format_numbered
from tools.files.paths import is_image, is_notebook, is_pdf, missing_file_message
from tools.files.readstate import staleness
from tools.files.replace import ReplaceError, Replacement, replace
from tools.files.textfile import hash_bytes


class ServedError(Exception):
    """The front end could not give or take the file; the tool fails saying so."""


def served_for(context: ToolContext, path: str, access: str) -> TextFiles | None:
    """The context's TextFiles when it serves this call's file: a text file, or one not on the
    disk yet (the editor may hold an unsaved buffer of a new file: read, it is asked for it; to
    write, it takes it), and a front end that can give it (and take it back, to write)."""
    files = context.text_files
    if files is None:
        return None
    missing = not os.path.exists(path)
    if access == "read":
        fits = is_text_buffer(path) or (missing and _text_name(path))
        return files if fits and files.serves(path, "read") else None
    fits = missing or is_text_buffer(path)
    return files if fits and files.serves(path, "write") else None


def _text_name(path: str) -> bool:
    return not (is_image(path) or is_pdf(path) or is_notebook(path))


def _exists(path: str) -> bool:
    # A stat of a local path (the editor's files are the project's): no I/O worth a thread.
    return os.path.exists(path)


on_disk = _exists


def is_text_buffer(path: str) -> bool:
    """A file a front end's TextFiles may serve: an existing regular file that is not an image,
    a PDF or a notebook (those are not text buffers; the tools read them from the disk)."""
    return os.path.isfile(path) and _text_name(path)


def record(
    context: ToolContext,
    path: str,
    text: str,
    full: bool,
    offset: int | None = None,
    limit: int | None = None,
) -> None:
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        mtime = 0
    context.read_files.record(
        ReadRecord(path, mtime, hash_bytes(text.encode("utf-8")), full, offset, limit)
    )


async def read_text(files: TextFiles, path: str) -> str:
    try:
        return await files.read_text(path)
    except Exception as exc:
        raise ServedError(f"Could not read {path} through the editor: {exc}") from None


async def write_text(files: TextFiles, context: ToolContext, path: str, text: str) -> None:
    try:
        await files.write_text(path, text)
    except Exception as exc:
        raise ServedError(f"Could not write {path} through the editor: {exc}") from None
    # The tool's own write: the model knows the whole file now (a second edit needs no Read).
    record(context, path, text, True)


def window_text(
    text: str, offset: int, limit: int, max_chars: int, empty: str
) -> tuple[str, int, int | None, bool]:
    """Read's numbered window over a buffer: the text, lines shown, total, and whether it
    stopped for size (the same limits as a file read from disk; `empty` is Read's text for an
    empty file)."""
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
        if shown and chars + cost > max_chars:
            stopped = True
            break
        shown.append(line)
        chars += cost
    if not shown:
        if total == 0:
            return empty, 0, total, False
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
            f"\n\n[Output stopped after line {next_line - 1} to stay under {max_chars} "
            f"characters. Continue with offset={next_line}, or use Grep to find the part you need.]"
        )
    return body, len(shown), known, stopped


def check_write_target(
    tool_name: str, file_path: str, context: ToolContext, must_exist: bool
) -> ValidationResult:
    """Edit's and Write's checks that need no content (the content checks run on the front
    end's text, in `call`; the disk may be behind it)."""
    path, failure = check_path(tool_name, file_path, context, "write")
    if failure is not None:
        return failure
    if os.path.isdir(path):
        return ValidationResult.failure(f"{path} is a directory, not a file.", error_code=8)
    if must_exist and not os.path.exists(path):
        return ValidationResult.failure(missing_file_message(path, context.cwd), error_code=8)
    return ValidationResult.success()


async def edit_served(
    files: TextFiles,
    context: ToolContext,
    path: str,
    old_string: str,
    new_string: str,
    replace_all: bool,
) -> tuple[str | None, Replacement]:
    """The edit made on the front end's text: the text before (None: a new file) and the
    replacement written back."""
    exists = _exists(path)
    if not exists and old_string != "":
        raise ServedError(missing_file_message(path, context.cwd))
    current = await read_text(files, path) if exists else ""
    problem = staleness(context, path, current.encode("utf-8")) if exists else None
    if problem:
        raise ServedError(problem)
    try:
        result = replace(current, old_string, new_string, replace_all)
    except ReplaceError as exc:
        raise ServedError(str(exc)) from None
    await write_text(files, context, path, result.text)
    return (current if exists else None), result


async def write_served(
    files: TextFiles, context: ToolContext, path: str, content: str
) -> FileChange:
    old = await read_text(files, path) if _exists(path) else None
    if old is not None:
        problem = staleness(context, path, old.encode("utf-8"))
        if problem:
            raise ServedError(problem)
    await write_text(files, context, path, content)
    diff, added, removed = unified_diff(old or "", content, path)
    if old is None:
        message = f"File created successfully at: {path}"
        return FileChange("create", path, diff, message, added, removed, content=content)
    first, last = changed_line_range(old, content)
    message = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{snippet(content, first, last)}"
    )
    return FileChange("update", path, diff, message, added, removed, original=old, content=content)
