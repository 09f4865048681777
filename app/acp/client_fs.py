"""The client's fs/read_text_file and fs/write_text_file as the file tools' TextFiles.

When the editor offers them, Read, Edit and Write (the real tools, tools/files/served.py) read what
the editor has (unsaved changes included) and write through the editor, which updates its buffer
and its file; the model sees what the user sees. This module is only the I/O: every rule
(validation, permissions, windows, replacement, must-read-first, results) is the tools' own, so a
change to one of them is made once. Images, PDFs and notebooks are not text buffers: the tools
read those from the disk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

ReadText = Callable[[str], Awaitable[str]]
WriteText = Callable[[str, str], Awaitable[None]]


class ClientFiles:
    """The client's file-system methods for one session; either may be missing. Implements
    tools' TextFiles (the composition passes it to the session's tool context)."""

    def __init__(self, read: ReadText | None, write: WriteText | None) -> None:
        self.read = read
        self.write = write

    def serves(self, path: str, access: Literal["read", "write"]) -> bool:
        # Writing needs the current text as the editor has it too: both methods or neither.
        if access == "read":
            return self.read is not None
        return self.read is not None and self.write is not None

    async def read_text(self, path: str) -> str:
        if self.read is None:
            raise RuntimeError("the client offers no fs/read_text_file")
        return await self.read(path)

    async def write_text(self, path: str, text: str) -> None:
        if self.write is None:
            raise RuntimeError("the client offers no fs/write_text_file")
        await self.write(path, text)
