"""Bounded capture of a command's output.

A command may print gigabytes; the model may see at most a few tens of thousands of characters,
and the UI only the tail. So the capture keeps the full text in memory only while it is small; past
`memory_limit` characters it spills everything to a file and keeps just a head (for the preview)
and a tail (for the UI) in memory, whatever the volume.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import TextIO

HEAD_CHARS = 4096
TAIL_CHARS = 4096


class OutputCapture:
    """Decodes one byte stream as UTF-8 (bad bytes replaced) and keeps it within bounds."""

    def __init__(self, spill_path: Path, memory_limit: int) -> None:
        self.spill_path = spill_path
        self.memory_limit = memory_limit
        self.total_chars = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._chunks: list[str] = []
        self._head = ""
        self._tail = ""
        self._file: TextIO | None = None
        self._spilled = False

    def feed(self, data: bytes) -> str:
        """Take a chunk of raw output; return its decoded text (for the progress channel)."""
        return self._add(self._decoder.decode(data))

    def finish(self) -> str:
        """Flush a trailing partial character; close the spill file. Returns the flushed text."""
        text = self._add(self._decoder.decode(b"", final=True))
        if self._file is not None:
            self._file.close()
            self._file = None
        return text

    def _add(self, text: str) -> str:
        if not text:
            return text
        self.total_chars += len(text)
        if len(self._head) < HEAD_CHARS:
            self._head += text[: HEAD_CHARS - len(self._head)]
        self._tail = (self._tail + text)[-TAIL_CHARS:]
        if self._file is not None:
            self._file.write(text)
        else:
            self._chunks.append(text)
            if self.total_chars > self.memory_limit:
                self._spill()
        return text

    def _spill(self) -> None:
        self.spill_path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.spill_path, "w", encoding="utf-8", errors="replace")  # noqa: SIM115
        for chunk in self._chunks:
            self._file.write(chunk)
        self._chunks = []
        self._spilled = True

    @property
    def is_spilled(self) -> bool:
        return self._spilled

    @property
    def head(self) -> str:
        return self._head

    @property
    def tail(self) -> str:
        return self._tail

    def text(self) -> str:
        """The whole text; only for a capture that did not spill."""
        if self.is_spilled:
            raise RuntimeError("the output was spilled to a file; read it from there")
        return "".join(self._chunks)

    def copy_to(self, out: TextIO) -> None:
        """Write the whole text to `out`, from memory or from the spill file, in bounded chunks."""
        if not self.is_spilled:
            out.write("".join(self._chunks))
            return
        with open(self.spill_path, encoding="utf-8", errors="replace") as src:
            while block := src.read(1 << 20):
                out.write(block)
