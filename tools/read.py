"""Read: text files as numbered lines, images as image blocks, PDFs by page, notebooks by cell."""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from tools.base import (
    CallLocation,
    CanUseTool,
    ProgressCallback,
    ReadOnlyTool,
    ResultView,
    TextFiles,
    ToolContext,
    ToolError,
    ToolInput,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.files import media, served
from tools.files.common import PathArgument, check_path
from tools.files.lines import format_numbered, read_window
from tools.files.paths import (
    extension,
    is_binary_extension,
    is_blocking_device,
    is_image,
    is_notebook,
    is_pdf,
    missing_file_message,
)
from tools.files.readstate import record_read
from tools.files.served import served_for

DEFAULT_LIMIT = 2000
# About 25,000 tokens: more than this in one result crowds out the conversation.
MAX_OUTPUT_CHARS = 100_000

EMPTY_FILE = (
    "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
)


class ReadInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="The line number to start reading from (1-based). Only provide if the file "
        "is too large to read at once",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description="The number of lines to read (default 2000). Only provide if the file is too "
        "large to read at once",
    )
    pages: str | None = Field(
        default=None,
        description='Page range for PDF files, e.g. "1-5" or "3". At most 20 pages per call.',
    )

    @field_validator("pages", mode="before")
    @classmethod
    def _pages_as_text(cls, value: Any) -> Any:
        # Models often send `pages: 3`.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


_NUMBERED = re.compile(r"^\s*\d+\t")


@dataclass(frozen=True)
class ReadResult:
    """What Read returns: `text` for the model, or `blocks` (image, notebook) as content."""

    kind: Literal["text", "image", "pdf", "notebook"]
    file_path: str
    text: str = ""
    blocks: tuple[Mapping[str, Any], ...] = ()
    start_line: int = 1
    num_lines: int = 0
    total_lines: int | None = None
    size_bytes: int = 0

    def hook_response(self) -> Any:
        """PostToolUse's `tool_response`, in Claude Code 2.1.332's shape for a text read
        (measured): `{type, file: {filePath, content, numLines, startLine, totalLines}}`, the
        content without the line numbers the model reads. Other kinds: the data as it is."""
        if self.kind != "text":
            return self
        content = "\n".join(_NUMBERED.sub("", line, count=1) for line in self.text.split("\n"))
        file = {
            "filePath": self.file_path,
            "content": content,
            "numLines": self.num_lines,
            "startLine": self.start_line,
            "totalLines": self.total_lines if self.total_lines is not None else self.num_lines,
        }
        return {"type": "text", "file": file}


class ReadTool(PathArgument, ReadOnlyTool[ReadInput]):
    name = "Read"
    file_view = "read"
    touches_file = True
    refetchable = True
    search_hint = "read file contents lines image pdf notebook"
    input_model = ReadInput
    permission_kind = "path_read"
    # Persisting Read's output to a file would only make the model Read that file.
    max_result_size_chars: ClassVar[float] = float("inf")

    def interrupt_behavior(self) -> Literal["cancel", "block"]:
        return "cancel"

    def locations(self, input: ReadInput) -> tuple[CallLocation, ...]:
        """The file, at the line the read starts from when the input names one."""
        subject = self.permission_subject(input)
        return (CallLocation(subject, input.offset),) if subject else ()

    def summary(self, input: ReadInput) -> str:
        where = input.file_path
        if input.pages:
            return f"{where} (pages {input.pages})"
        if input.offset or input.limit:
            start = max(input.offset or 1, 1)
            end = start + (input.limit or DEFAULT_LIMIT) - 1
            return f"{where} (lines {start}-{end})"
        return where

    def result_summary(self, data: Any) -> str:
        if not isinstance(data, ReadResult):
            return ""
        if data.kind == "image":
            return f"Read image ({data.size_bytes // 1024} KB)"
        if data.kind == "pdf":
            return f"Read {data.num_lines} page{'s' if data.num_lines != 1 else ''}"
        if data.kind == "notebook":
            return f"Read notebook ({data.num_lines} cells)"
        return f"Read {data.num_lines} line{'s' if data.num_lines != 1 else ''}"

    async def _served(
        self, files: TextFiles, context: ToolContext, path: str, input: ReadInput
    ) -> ToolResult:
        try:
            text = await served.read_text(files, path)
        except served.ServedError as exc:
            if not served.on_disk(path):
                # No buffer in the editor and nothing on the disk: the file does not exist.
                raise ToolError(missing_file_message(path, context.cwd)) from None
            raise ToolError(str(exc)) from None
        offset = max(input.offset or 1, 1)
        limit = input.limit or DEFAULT_LIMIT
        body, count, total, stopped = served.window_text(
            text, offset, limit, MAX_OUTPUT_CHARS, EMPTY_FILE
        )
        full = offset == 1 and total is not None and not stopped
        served.record(context, path, text, full, input.offset, input.limit)
        return ToolResult(data=ReadResult("text", path, body, (), offset, count, total))

    def result_from_record(self, recorded: Any, content: str) -> ReadResult | None:
        """A text read's `{type: "text", file: {filePath, numLines, startLine, totalLines}}`;
        another kind's fields as the dataclass wrote them (its blocks are not rebuilt)."""
        if not isinstance(recorded, Mapping):
            return None
        file = recorded.get("file")
        if recorded.get("type") == "text" and isinstance(file, Mapping):
            path, lines = file.get("filePath"), file.get("numLines")
            start, total = file.get("startLine", 1), file.get("totalLines")
            if not isinstance(path, str) or not isinstance(lines, int):
                return None
            return ReadResult(
                "text",
                path,
                content,
                start_line=start if isinstance(start, int) else 1,
                num_lines=lines,
                total_lines=total if isinstance(total, int) else None,
            )
        kind, path = recorded.get("kind"), recorded.get("file_path")
        if kind in ("image", "pdf", "notebook") and isinstance(path, str):
            lines, size = recorded.get("num_lines"), recorded.get("size_bytes")
            return ReadResult(
                kind,
                path,
                num_lines=lines if isinstance(lines, int) else 0,
                size_bytes=size if isinstance(size, int) else 0,
            )
        return None

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, ReadResult) and data.kind == "image" and not is_error:
            return ResultView(self.result_summary(data), data.file_path, "image")
        return super().result_view(data, is_error)

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, ReadResult):
            return [dict(b) for b in data.blocks] if data.blocks else data.text
        return super().to_result_content(data)

    async def validate_input(self, input: ReadInput, context: ToolContext) -> ValidationResult:
        # String checks only: nothing here may touch the file before the call is approved.
        if input.pages is not None:
            if not is_pdf(input.file_path):
                return ValidationResult.failure(
                    "The pages parameter applies only to PDF files; use offset and limit for "
                    "other files.",
                    error_code=4,
                )
            try:
                media.parse_pages(input.pages)
            except ValueError as exc:
                return ValidationResult.failure(str(exc), error_code=4)
        path, failure = check_path(self.name, input.file_path, context, "read")
        if failure is not None:
            return failure
        if is_blocking_device(path):
            return ValidationResult.failure(
                f"Cannot read '{path}': this device file would block or never end.", error_code=5
            )
        if is_binary_extension(path):
            return ValidationResult.failure(
                f"This tool cannot read binary files. The file appears to be a binary "
                f"{extension(path)} file. Use the Bash tool with a suitable command (file, xxd, "
                "unzip -l, ...) to inspect it.",
                error_code=6,
            )
        return ValidationResult.success()

    async def call(
        self,
        input: ReadInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.file_path)
        served = served_for(context, path, "read")
        if served is not None:  # the front end's text (an editor's buffer), not the disk's
            return await self._served(served, context, path, input)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise ToolError(missing_file_message(path, context.cwd)) from None
        except NotADirectoryError:
            raise ToolError(missing_file_message(path, context.cwd)) from None
        except PermissionError:
            raise ToolError(f"Permission denied: cannot read {path}.") from None
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(
                f"EISDIR: {path} is a directory, not a file. Use the Bash tool with `ls` or the "
                "Glob tool to list its contents."
            )
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(
                f"Cannot read {path}: it is not a regular file (device, pipe or socket)."
            )
        try:
            if is_image(path):
                result = await asyncio.to_thread(self._image, context, path, st.st_size)
            elif is_pdf(path):
                result = await asyncio.to_thread(self._pdf, context, path, input.pages)
            elif is_notebook(path):
                result = await asyncio.to_thread(self._notebook, context, path)
            else:
                result = await asyncio.to_thread(self._text, context, path, input)
        except media.MediaError as exc:
            raise ToolError(str(exc)) from None
        except PermissionError:
            raise ToolError(f"Permission denied: cannot read {path}.") from None
        except OSError as exc:
            raise ToolError(f"Could not read {path}: {exc.strerror or exc}") from None
        return ToolResult(data=result)

    # -- the kinds of file ---------------------------------------------------------------------

    def _text(self, context: ToolContext, path: str, input: ReadInput) -> ReadResult:
        offset = max(input.offset or 1, 1)
        limit = input.limit or DEFAULT_LIMIT
        window = read_window(path, offset, limit, max_chars=MAX_OUTPUT_CHARS)
        full = offset == 1 and window.total_lines is not None and not window.stopped_for_size
        record_read(context, path, full, input.offset, input.limit)
        if not window.lines:
            total = window.total_lines or 0
            if total == 0:
                text = EMPTY_FILE
            else:
                text = (
                    "<system-reminder>Warning: the file exists but is shorter than the provided "
                    f"offset ({offset}). The file has {total} line{'s' if total != 1 else ''}."
                    "</system-reminder>"
                )
        else:
            text = format_numbered(window.lines, offset)
            if window.stopped_for_size:
                next_line = offset + len(window.lines)
                text += (
                    f"\n\n[Output stopped after line {next_line - 1} to stay under "
                    f"{MAX_OUTPUT_CHARS} characters. Continue with offset={next_line}, or use "
                    "Grep to find the part you need.]"
                )
        return ReadResult("text", path, text, (), offset, len(window.lines), window.total_lines)

    def _image(self, context: ToolContext, path: str, size: int) -> ReadResult:
        if size > media.MAX_IMAGE_BYTES:
            raise media.MediaError(
                f"Image is too large to send ({size} bytes; the limit is {media.MAX_IMAGE_BYTES}). "
                "Resize it with the Bash tool first."
            )
        with open(path, "rb") as f:
            data = f.read()
        if not data:
            return ReadResult("text", path, EMPTY_FILE)
        media_type = media.image_media_type(data)
        if media_type is None:
            raise media.MediaError(
                f"{path} has an image extension but is not a PNG, JPEG, GIF or WebP image."
            )
        record_read(context, path, True, None, None)
        return ReadResult(
            "image", path, blocks=(media.image_block(data, media_type),), size_bytes=size
        )

    def _pdf(self, context: ToolContext, path: str, pages: str | None) -> ReadResult:
        page_range = media.parse_pages(pages) if pages else None
        pdf = media.read_pdf(path, page_range)
        record_read(context, path, page_range is None, None, None)
        text = pdf.text or "<system-reminder>Warning: the PDF has no pages.</system-reminder>"
        if pdf.total_pages:
            text = f"PDF {path}: pages {pdf.first}-{pdf.last} of {pdf.total_pages}\n\n{text}"
        return ReadResult(
            "pdf",
            path,
            text,
            (),
            pdf.first,
            pdf.last - pdf.first + 1 if pdf.total_pages else 0,
            pdf.total_pages,
        )

    def _notebook(self, context: ToolContext, path: str) -> ReadResult:
        with open(path, "rb") as f:
            raw = f.read()
        blocks = media.notebook_blocks(raw)
        record_read(context, path, True, None, None)
        cells = sum(b.get("text", "").count("<cell id=") for b in blocks if b["type"] == "text")
        if len(blocks) == 1:
            return ReadResult("notebook", path, blocks[0]["text"], (), 1, cells)
        return ReadResult("notebook", path, "", tuple(blocks), 1, cells)
