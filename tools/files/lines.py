"""A window of lines from a text file, streamed: memory is bounded by the window, not the file.

Lines end at `\\n` only (as in ripgrep and Edit), so the numbers Read shows are the numbers Grep
shows. Skipping to `offset` scans raw bytes in large chunks, which is what makes reading line
1,000,000 of a huge log cheap.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import BinaryIO

from tools.files import textfile
from tools.files.textfile import sniff_encoding

MAX_LINE_CHARS = 2000
TRUNCATION_MARK = "… [line truncated]"
_CHUNK = 1 << 20


@dataclass
class LineWindow:
    """Lines `start`..`start + len(lines) - 1` of a file (1-based)."""

    start: int
    lines: list[str] = field(default_factory=list)
    # Known only when the window reached the end of the file (or started past it).
    total_lines: int | None = None
    cut_lines: int = 0
    # The window stopped early because the output reached `max_chars`.
    stopped_for_size: bool = False
    chars: int = 0


def decode_line(raw: bytes) -> str:
    """As Edit decodes it (textfile.decode_line), so what Read shows is what Edit matches."""
    return textfile.decode_line(raw)[0]


def _strip_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def _skip_binary(f: BinaryIO, count: int) -> tuple[int, bool]:
    """Skip `count` lines. Returns (lines skipped, whether a partial last line was seen)."""
    skipped = 0
    last = b""
    while skipped < count:
        chunk = f.read(_CHUNK)
        if not chunk:
            return skipped, last not in (b"", b"\n")
        found = chunk.count(b"\n")
        if skipped + found >= count:
            pos = -1
            for _ in range(count - skipped):
                pos = chunk.index(b"\n", pos + 1)
            f.seek(pos + 1 - len(chunk), io.SEEK_CUR)
            return count, False
        skipped += found
        last = chunk[-1:]
    return skipped, False


def _read_line_binary(f: BinaryIO, max_bytes: int) -> tuple[bytes, bool]:
    """One line with at most `max_bytes` kept (the rest consumed and dropped); (b"", _) at EOF."""
    raw = f.readline(max_bytes)
    cut = False
    if raw and not raw.endswith(b"\n") and len(raw) == max_bytes:
        while True:
            rest = f.readline(_CHUNK)
            if not rest:
                break
            cut = True
            if rest.endswith(b"\n"):
                raw += b"\n"
                break
    return raw, cut


def read_window(
    path: str,
    offset: int,
    limit: int,
    max_line_chars: int = MAX_LINE_CHARS,
    max_chars: int | None = None,
) -> LineWindow:
    """Lines from `offset` (1-based), at most `limit` of them and at most `max_chars` in all."""
    offset = max(offset, 1)
    window = LineWindow(start=offset)
    with open(path, "rb") as f:
        encoding = sniff_encoding(f.read(4))
        f.seek(0)
        if encoding == "utf-16":
            _read_text_window(f, window, offset, limit, max_line_chars, max_chars)
        else:
            if encoding == "utf-8-sig":
                f.seek(3)
            _read_binary_window(f, window, offset, limit, max_line_chars, max_chars)
    return window


def _accept(
    window: LineWindow, line: str, cut: bool, max_line_chars: int, max_chars: int | None
) -> bool:
    if cut or len(line) > max_line_chars:
        line = line[:max_line_chars] + TRUNCATION_MARK
        window.cut_lines += 1
    # 8 characters a line for the number and tab.
    cost = len(line) + 8
    if max_chars is not None and window.lines and window.chars + cost > max_chars:
        window.stopped_for_size = True
        return False
    window.lines.append(line)
    window.chars += cost
    return True


def _read_binary_window(
    f: BinaryIO,
    window: LineWindow,
    offset: int,
    limit: int,
    max_line_chars: int,
    max_chars: int | None,
) -> None:
    skipped, partial = _skip_binary(f, offset - 1)
    if skipped < offset - 1:
        window.total_lines = skipped + (1 if partial else 0)
        return
    # UTF-8 needs at most 4 bytes a character; one more character tells us the line was cut.
    max_bytes = (max_line_chars + 1) * 4
    while len(window.lines) < limit:
        raw, cut = _read_line_binary(f, max_bytes)
        if not raw:
            window.total_lines = offset - 1 + len(window.lines)
            return
        # A cut line may end inside a character: replace it rather than fall back to latin-1.
        line = raw.decode("utf-8", "replace") if cut else decode_line(raw)
        if not _accept(window, _strip_eol(line), cut, max_line_chars, max_chars):
            return
    if not f.read(1):
        window.total_lines = offset - 1 + len(window.lines)


def _read_text_window(
    f: BinaryIO,
    window: LineWindow,
    offset: int,
    limit: int,
    max_line_chars: int,
    max_chars: int | None,
) -> None:
    text = io.TextIOWrapper(f, encoding="utf-16", errors="replace", newline="\n")
    number = 0

    def next_line() -> tuple[str, bool]:
        line = text.readline(max_line_chars + 1)
        cut = False
        if line and not line.endswith("\n") and len(line) == max_line_chars + 1:
            while rest := text.readline(_CHUNK):
                cut = True
                if rest.endswith("\n"):
                    break
        return line, cut

    while number < offset - 1:
        line, _ = next_line()
        if not line:
            window.total_lines = number
            return
        number += 1
    while len(window.lines) < limit:
        line, cut = next_line()
        if not line:
            window.total_lines = number + len(window.lines)
            return
        if not _accept(window, _strip_eol(line), cut, max_line_chars, max_chars):
            return
    if not text.read(1):
        window.total_lines = number + len(window.lines)


def format_numbered(lines: list[str], start: int) -> str:
    """CONTRACT.md's compact form: the line number, a tab, the line."""
    return "\n".join(f"{start + i}\t{line}" for i, line in enumerate(lines))
