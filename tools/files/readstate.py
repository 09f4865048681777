"""Must-read-first and changed-since-read: Edit and Write never change what the model has not seen."""

from __future__ import annotations

import os

from tools.base import ReadRecord, ToolContext
from tools.files.textfile import hash_bytes, hash_file

NOT_READ = "File has not been read yet. Read it first before writing to it."
CHANGED = (
    "File has been modified since read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)


def record_read(
    context: ToolContext, path: str, full: bool, offset: int | None, limit: int | None
) -> None:
    st = os.stat(path)
    context.read_files.record(
        ReadRecord(path, st.st_mtime_ns, hash_file(path), full, offset, limit)
    )


def record_written(context: ToolContext, path: str, data: bytes) -> None:
    """After our own write the model knows the whole file: a second edit needs no new Read."""
    st = os.stat(path)
    context.read_files.record(ReadRecord(path, st.st_mtime_ns, hash_bytes(data), True))


def write_journal(context: ToolContext) -> str | None:
    """Where atomic writes record their temporary files (tools/files/atomic.py)."""
    return os.path.join(context.session_dir, "pending-writes") if context.session_dir else None


def staleness(context: ToolContext, path: str, data: bytes | None = None) -> str | None:
    """Why `path` may not be changed now, or None. `path` must exist; `data`, when given, is
    its content as just read (the bytes about to be edited).

    The content decides, not the mtime: a change whose mtime was put back (`touch -r`, a tool
    that restores times, a second write within the clock's resolution) is still a change, and a
    touched but unchanged file (a formatter that found nothing to do) is still fresh."""
    record = context.read_files.get(path)
    if record is None:
        return NOT_READ
    try:
        current = hash_bytes(data) if data is not None else hash_file(path)
    except OSError:
        return CHANGED
    return None if current == record.content_hash else CHANGED
