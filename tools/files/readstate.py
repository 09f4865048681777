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


def staleness(context: ToolContext, path: str) -> str | None:
    """Why `path` may not be changed now, or None. `path` must exist."""
    record = context.read_files.get(path)
    if record is None:
        return NOT_READ
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return CHANGED
    if mtime == record.mtime_ns:
        return None
    # A touched but unchanged file (a formatter that found nothing to do) is still fresh.
    try:
        same = hash_file(path) == record.content_hash
    except OSError:
        same = False
    return None if same else CHANGED
