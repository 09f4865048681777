"""`cleanupPeriodDays` for transcripts: at start, delete those nobody touched for that long.

As Claude Code does with `~/.claude/projects` (default 30 days): every project's transcripts
(`<state>/projects/*/*.jsonl`) whose last change is older than the period. The sessions' state
folders (persisted tool outputs) are app/state_cleanup.py's, on the same setting. The session
being started or resumed is never deleted. It runs in a thread, off the first frame's path, and
a file it cannot delete is left alone: cleanup must never cost a session.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

DEFAULT_DAYS = 30
_DAY_S = 86_400.0


def cleanup_days(value: int | None) -> int:
    return DEFAULT_DAYS if value is None else max(1, value)


def cleanup_old_transcripts(
    state: Path, days: int, keep_session: str, now: float | None = None
) -> list[Path]:
    """Deletes the transcripts older than `days`, but `keep_session`'s; returns them."""
    cutoff = (time.time() if now is None else now) - days * _DAY_S
    removed: list[Path] = []
    for transcript in state.glob("projects/*/*.jsonl"):
        if transcript.stem == keep_session or transcript.is_symlink():
            continue
        try:
            if transcript.stat().st_mtime < cutoff:
                transcript.unlink()
                removed.append(transcript)
        except OSError:
            continue
    return removed


def start_cleanup(state: Path, days: int, keep_session: str, env: Mapping[str, str]) -> None:
    """Runs the cleanup in a daemon thread (`LATHE_CLEANUP_SYNC=1`: now, for tests)."""
    if env.get("LATHE_CLEANUP_SYNC") == "1":
        cleanup_old_transcripts(state, days, keep_session)
        return
    import threading

    threading.Thread(
        target=cleanup_old_transcripts, args=(state, days, keep_session), daemon=True
    ).start()
