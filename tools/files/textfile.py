"""Text files as the model sees them: decoded, with LF line endings, and written back faithfully.

The model always works with `\\n`; the file keeps its own encoding (BOM included) and its CRLF or LF
line endings, so an edit never turns a whole Windows file into a one-line diff.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from typing import Literal

LineEnding = Literal["\n", "\r\n"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)

# Larger than this, Edit and Write refuse: the file is read into memory to be changed.
MAX_EDIT_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class TextFile:
    """A decoded file. `text` has LF endings when `line_ending` is CRLF (it is restored on write)."""

    text: str
    encoding: str
    line_ending: LineEnding
    mode: int | None = None


def sniff_encoding(head: bytes) -> str:
    """The encoding for a file that starts with `head`: its BOM's, else UTF-8."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return "utf-8"


def decode(data: bytes) -> tuple[str, str]:
    """Decode bytes; invalid UTF-8 falls back to latin-1, which round-trips every byte."""
    encoding = sniff_encoding(data[:4])
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


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
    text, encoding = decode(data)
    ending = detect_line_ending(text)
    if ending == "\r\n":
        text = text.replace("\r\n", "\n")
    return TextFile(text, encoding, ending, stat.S_IMODE(st.st_mode))


def encode(text: str, encoding: str, line_ending: LineEnding) -> bytes:
    if line_ending == "\r\n":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        # New text the old encoding cannot hold (an emoji into a latin-1 file): UTF-8 keeps it.
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str, data: bytes, mode: int | None = None) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target.

    A crash leaves either the old file or the new one, never half of each. A symlink is kept:
    its target is what gets replaced.
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
