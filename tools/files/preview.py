"""Previews of a file change against the file as it is on disk, for the approval dialog.

The diff is the one the call would make now: the file is read and decoded as Edit and Write read
it, and the same replacement applied. Reading may block, so callers run previews off the UI loop.
"""

from __future__ import annotations

import os
import stat

from tools.base import FileDiff, ToolPreview
from tools.files import textfile
from tools.files.diff import unified_diff

# Larger files are previewed from the change alone: the dialog must open promptly.
PREVIEW_MAX_BYTES = 2 * 1024 * 1024


def current_file(path: str) -> textfile.TextFile | None:
    """The file decoded as Edit decodes it, or None (missing, unreadable, too large, not a
    regular file). Opened without blocking and checked on the open file: a FIFO or a device at
    the path must not hang the question the preview is for."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > PREVIEW_MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(PREVIEW_MAX_BYTES + 1)
        if len(data) > PREVIEW_MAX_BYTES:
            return None
        return textfile.parse(data, stat.S_IMODE(st.st_mode))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def diff_preview(old: str, new: str, path: str, *, created: bool = False) -> ToolPreview:
    """`created`: there is no file yet (the change's old text is None, not empty)."""
    text, _, _ = unified_diff(old, new, path)
    change = FileDiff(path, None if created else old, new)
    return ToolPreview("diff", text, path=path, change=change)
