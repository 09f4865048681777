"""Bounded capture of a command's output.

A command may print gigabytes; the model may see at most a few tens of thousands of characters,
and the UI only the tail. So the capture keeps the full text in memory only while it is small; past
`memory_limit` characters it spills everything to a file and keeps just a head (for the preview)
and a tail (for the UI) in memory, whatever the volume.

The spill file is capped too (`max_output_bytes`, see tools/process/limits.py): past the cap the
rest is counted, not kept, and the command runs on. A file that cannot be written (a full disk)
is given up the same way. Either way the capture never raises while the command runs: a pump that
stopped reading would leave the command blocked on a full pipe until its timeout.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import BinaryIO, TextIO

from tools.process.limits import max_output_bytes

HEAD_CHARS = 4096
TAIL_CHARS = 4096


class OutputCapture:
    """Decodes one byte stream as UTF-8 (bad bytes replaced) and keeps it within bounds."""

    def __init__(self, spill_path: Path, memory_limit: int, max_bytes: int | None = None) -> None:
        self.spill_path = spill_path
        self.memory_limit = memory_limit
        self.max_bytes = max_output_bytes() if max_bytes is None else max_bytes
        self.total_chars = 0
        # What the spill file holds; past the cap, or after a write error, nothing more is added.
        self.spilled_bytes = 0
        self.capped = False
        self.spill_error: str | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._chunks: list[str] = []
        self._head = ""
        self._tail = ""
        self._file: BinaryIO | None = None
        self._spilled = False

    def feed(self, data: bytes) -> str:
        """Take a chunk of raw output; return its decoded text (for the progress channel)."""
        return self._add(self._decoder.decode(data))

    def finish(self) -> str:
        """Flush a trailing partial character; close the spill file. Returns the flushed text."""
        text = self._add(self._decoder.decode(b"", final=True))
        self._close()
        return text

    def _add(self, text: str) -> str:
        if not text:
            return text
        self.total_chars += len(text)
        if len(self._head) < HEAD_CHARS:
            self._head += text[: HEAD_CHARS - len(self._head)]
        self._tail = (self._tail + text)[-TAIL_CHARS:]
        if self._spilled:
            self._write(text)
        else:
            self._chunks.append(text)
            if self.total_chars > self.memory_limit:
                self._spill()
        return text

    def _spill(self) -> None:
        self._spilled = True
        chunks, self._chunks = self._chunks, []
        try:
            self.spill_path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.spill_path, "wb")  # noqa: SIM115 - closed by finish()
        except OSError as exc:
            self._give_up(exc)
            return
        for chunk in chunks:
            self._write(chunk)

    def _write(self, text: str) -> None:
        if self._file is None:
            return
        data = text.encode("utf-8", errors="replace")
        room = self.max_bytes - self.spilled_bytes
        if len(data) > room:
            data = data[: max(room, 0)]
            self.capped = True
        try:
            self._file.write(data)
        except OSError as exc:
            self._give_up(exc)
            return
        self.spilled_bytes += len(data)
        if self.capped:
            self._close()

    def _give_up(self, exc: OSError) -> None:
        self.spill_error = f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else "")
        self._close()

    def _close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:  # the last buffered block did not fit either
                self._file = None
                self._give_up(exc)
            self._file = None

    @property
    def is_spilled(self) -> bool:
        return self._spilled

    @property
    def complete(self) -> bool:
        """True when every character is kept (in memory, or whole in the spill file)."""
        return not self.capped and self.spill_error is None

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
        """Write the whole kept text to `out`, from memory or from the spill file, in bounded
        chunks."""
        if not self.is_spilled:
            out.write("".join(self._chunks))
            return
        with open(self.spill_path, encoding="utf-8", errors="replace") as src:
            while block := src.read(1 << 20):
                out.write(block)
