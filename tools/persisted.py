"""Persisting outputs that are too large for the model, and the preview the model gets instead."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PREVIEW_CHARS = 2000
# What one persisted output may take on disk; the rest is not kept (the result says so).
DEFAULT_MAX_PERSISTED_CHARS = 20_000_000
MAX_PERSISTED_ENV = "LATHE_MAX_PERSISTED_OUTPUT_CHARS"


def max_persisted_chars(env: dict[str, str] | None = None) -> int:
    """The cap, from `LATHE_MAX_PERSISTED_OUTPUT_CHARS` (a positive integer) or the default."""
    raw = (os.environ if env is None else env).get(MAX_PERSISTED_ENV, "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_PERSISTED_CHARS
    return value if value > 0 else DEFAULT_MAX_PERSISTED_CHARS


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


def persisted_message(
    total_chars: int, path: str | Path, preview: str, saved_chars: int | None = None
) -> str:
    """The exact text of CONTRACT.md for an output saved to a file; when the cap cut what was
    saved (`saved_chars` < `total_chars`), the text says how much was kept and the cap."""
    if saved_chars is None or saved_chars >= total_chars:
        where = f"Full output saved to: {path}"
    else:
        where = (
            f"Only the first {saved_chars} characters were saved (the cap, "
            f"{MAX_PERSISTED_ENV}), to: {path}"
        )
    return (
        f"<persisted-output>Output too large ({total_chars} characters). "
        f"{where}\n\nPreview (first 2KB):\n{preview}\n...</persisted-output>"
    )


@dataclass(frozen=True)
class Persisted:
    path: Path
    saved_chars: int


def persist_text(
    session_dir: str, tool_use_id: str, text: str, cap: int | None = None
) -> Persisted:
    """Write `text`, up to the cap, to the session's tool-results folder (atomically). An
    OSError (a full disk) leaves no partial file behind and is the caller's to report."""
    limit = max_persisted_chars() if cap is None else cap
    kept = text[:limit]
    path = result_path(session_dir, tool_use_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(kept)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return Persisted(path, len(kept))
