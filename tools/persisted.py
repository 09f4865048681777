"""Persisting outputs that are too large for the model, and the preview the model gets instead."""

from __future__ import annotations

import os
from pathlib import Path

PREVIEW_CHARS = 2000


def tool_results_dir(session_dir: str) -> Path:
    return Path(session_dir) / "tool-results"


def result_path(session_dir: str, tool_use_id: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in tool_use_id) or "result"
    return tool_results_dir(session_dir) / f"{safe}.txt"


def make_preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The first `limit` characters, cut at a line end when one is in the second half."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    newline = cut.rfind("\n")
    if newline > limit // 2:
        cut = cut[:newline]
    return cut


def persisted_message(total_chars: int, path: str | Path, preview: str) -> str:
    """The exact text of CONTRACT.md for an output saved to a file."""
    return (
        f"<persisted-output>Output too large ({total_chars} characters). "
        f"Full output saved to: {path}\n\nPreview (first 2KB):\n{preview}\n...</persisted-output>"
    )


def persist_text(session_dir: str, tool_use_id: str, text: str) -> Path:
    """Write `text` to the session's tool-results folder (atomically) and return the path."""
    path = result_path(session_dir, tool_use_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path
