"""Text files as the model sees them, and changed without touching what the change did not touch.

The model always works with `\\n` and decoded text; the file keeps its bytes. A file is split into
lines and each line decoded as Read decodes it (the file's BOM encoding; else UTF-8; a line that
is not UTF-8 as cp1252, else latin-1), so a file of mixed encodings shows every line readably.
Writing never re-encodes the whole file: the lines the new text shares with the old (a common
head and tail) keep their original bytes, and only the lines in between are encoded, each in the
encoding of the lines it replaces. New text that this encoding cannot hold is refused
(EncodingRefused) rather than re-encoding untouched text of the line or the file. CRLF files
stay CRLF.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from typing import Literal

from tools.files.atomic import atomic_write

__all__ = ["atomic_write"]

LineEnding = Literal["\n", "\r\n"]

# Larger than this, Edit and Write refuse: the file is read into memory to be changed.
MAX_EDIT_BYTES = 256 * 1024 * 1024

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
LEGACY = ("cp1252", "latin-1")


class EncodingRefused(ValueError):
    """New text that the file's encoding cannot hold; the message says what to do."""


@dataclass(frozen=True)
class TextFile:
    """A decoded file. `text` has LF endings when `line_ending` is CRLF (restored on write)."""

    text: str
    encoding: str  # the BOM's or "utf-8" for the whole file, or "mixed", "cp1252", "latin-1"
    line_ending: LineEnding
    mode: int | None = None
    raw: bytes = b""
    bom: bytes = b""
    # One entry per line of `text` (split after each "\n"): where its bytes end in `raw`, and
    # the encoding it was decoded with.
    ends: tuple[int, ...] = field(default=(), repr=False)
    codecs: tuple[str, ...] = field(default=(), repr=False)

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)


def split_lines(text: str) -> list[str]:
    """Lines with their "\\n" kept (the last one may have none); "" has no lines."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _split_bytes(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def sniff_encoding(head: bytes) -> str:
    """Read's name for the encoding of a file that starts with `head`."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return "utf-8"


def decode_line(raw: bytes) -> tuple[str, str]:
    """One line of a file that is not all UTF-8: UTF-8 if it is, else cp1252, else latin-1."""
    for codec in ("utf-8", *LEGACY):
        try:
            return raw.decode(codec), codec
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")


def decode(data: bytes) -> tuple[str, str]:
    """The text of `data` and its encoding (see TextFile.encoding)."""
    _, lines, _, encoding, _ = _decode(data)
    return "".join(lines), encoding


def _decode(data: bytes) -> tuple[bytes, list[str], list[bytes], str, list[str]]:
    """(bom, lines, raw lines, file encoding, line encodings)."""
    bom, codec = b"", "utf-8"
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, codec = mark, name
            break
    body = data[len(bom) :]
    if codec.startswith("utf-16"):
        try:
            text = body.decode(codec)
        except UnicodeDecodeError:
            raise ValueError(
                f"The file starts with a {codec} byte order mark but is not valid {codec}; "
                "it cannot be edited safely."
            ) from None
        lines = split_lines(text)
        raws = [line.encode(codec) for line in lines]
        if b"".join(raws) != body:
            raise ValueError(f"The file's {codec} does not round-trip; it cannot be edited safely.")
        return bom, lines, raws, codec, [codec] * len(lines)
    raws = _split_bytes(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        lines = split_lines(text)
        return bom, lines, raws, "utf-8", ["utf-8"] * len(lines)
    lines, codecs = [], []
    for raw in raws:
        line, used = decode_line(raw)
        lines.append(line)
        codecs.append(used)
    mixed = any(c == "utf-8" and not r.isascii() for c, r in zip(codecs, raws, strict=True))
    legacy = "latin-1" if "latin-1" in codecs else "cp1252"
    return bom, lines, raws, "mixed" if mixed else legacy, codecs


def detect_line_ending(text: str) -> LineEnding:
    """CRLF only when every line ends so: a mixed file is edited byte for byte, never rewritten."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"


def load(path: str) -> TextFile:
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_size > MAX_EDIT_BYTES:
            raise ValueError(
                f"File is too large to edit ({st.st_size} bytes; the limit is {MAX_EDIT_BYTES})."
            )
        data = f.read()
    return parse(data, stat.S_IMODE(st.st_mode))


def parse(data: bytes, mode: int | None = None) -> TextFile:
    bom, lines, raws, encoding, codecs = _decode(data)
    ending = detect_line_ending("".join(lines))
    if ending == "\r\n":
        lines = [line[:-2] + "\n" if line.endswith("\r\n") else line for line in lines]
    ends, at = [], len(bom)
    for raw in raws:
        at += len(raw)
        ends.append(at)
    return TextFile("".join(lines), encoding, ending, mode, data, bom, tuple(ends), tuple(codecs))


def render(old: TextFile, new_text: str) -> bytes:
    """The bytes of `old` changed to show `new_text`: the lines both share at the start and at
    the end keep their bytes exactly; the lines between are encoded like the ones they replace."""
    old_lines, new_lines = old.lines, split_lines(new_text)
    limit = min(len(old_lines), len(new_lines))
    head = 0
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < limit - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    start = old.ends[head - 1] if head else len(old.bom)
    stop = old.ends[len(old_lines) - tail - 1] if tail else len(old.raw)
    middle = new_lines[head : len(new_lines) - tail]
    prefix = old.raw[:start] if old.raw else old.bom
    if len(middle) == len(old_lines) - tail - head:
        # As many lines as before (replace_all, a one-line edit): line by line, so that an
        # unchanged line keeps its bytes and a changed one its own encoding; one codec for the
        # whole span would re-encode (or refuse) the UTF-8 lines between two legacy ones.
        return prefix + _encode_paired(old, head, middle) + old.raw[stop:]
    replaced = old.codecs[head : len(old_lines) - tail]
    return prefix + _encode_lines(old, middle, replaced, head) + old.raw[stop:]


def _encode_paired(old: TextFile, head: int, middle: list[str]) -> bytes:
    out = []
    old_lines = old.lines
    for k, line in enumerate(middle):
        i = head + k
        if line == old_lines[i]:
            out.append(old.raw[old.ends[i - 1] if i else len(old.bom) : old.ends[i]])
        else:
            out.append(_encode_lines(old, [line], (old.codecs[i],), i))
    return b"".join(out)


def _encode_lines(old: TextFile, lines: list[str], replaced: tuple[str, ...], first: int) -> bytes:
    """`lines` (the new text of old lines first.. on) in the encoding of the lines they replace."""
    if old.encoding in ("mixed", *LEGACY):
        legacy = [c for c in replaced if c != "utf-8"]
        codec = legacy[0] if legacy else ("utf-8" if old.encoding == "mixed" else old.encoding)
    else:
        codec = old.encoding
    out = []
    for k, line in enumerate(lines):
        if old.line_ending == "\r\n" and line.endswith("\n"):
            line = line[:-1] + "\r\n"
        try:
            out.append(line.encode(codec))
        except UnicodeEncodeError as exc:
            # A mixed file too: encoding the line as UTF-8 instead would change the bytes of
            # its untouched text (é as \xe9 becomes \xc3\xa9), so the change is refused.
            bad = line[exc.start : exc.end]
            where = (
                f"Line {first + k + 1} of this file of mixed encodings is {codec}"
                if old.encoding == "mixed"
                else f"The file is encoded as {codec}"
            )
            raise EncodingRefused(
                f"{where} and the new text has characters that {codec} cannot represent "
                f"({bad!r}); the rest of the {'line' if old.encoding == 'mixed' else 'file'} "
                f"would be unreadable or re-encoded. Use only characters {codec} has, or convert "
                "the file first."
            ) from None
    return b"".join(out)


def encode_new(text: str) -> bytes:
    """A new file: UTF-8."""
    return text.encode("utf-8")


def hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_file(path: str, chunk: int = 1 << 20) -> str:
    """Streamed, so hashing a huge file costs time but no memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()
