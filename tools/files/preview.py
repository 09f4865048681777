"""Previews of a file change against the file as it is on disk, for the approval dialog.

The diff is the one the call would make now: the file is read and decoded as Edit and Write read
it, and the same replacement applied. Reading may block, so callers run previews off the UI loop.
"""

from __future__ import annotations

import os

from tools.base import ToolPreview
from tools.files import textfile
from tools.files.diff import unified_diff

# Larger files are previewed from the change alone: the dialog must open promptly.
PREVIEW_MAX_BYTES = 2 * 1024 * 1024


def current_file(path: str) -> textfile.TextFile | None:
    """The file decoded as Edit decodes it, or None (missing, unreadable, too large, a folder)."""
    try:
        if os.path.getsize(path) > PREVIEW_MAX_BYTES:
            return None
        return textfile.load(path)
    except (OSError, ValueError):
        return None


def diff_preview(old: str, new: str, path: str) -> ToolPreview:
    text, _, _ = unified_diff(old, new, path)
    return ToolPreview("diff", text, path=path)
