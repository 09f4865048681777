"""Housekeeping at start: what crashed runs left behind, and sessions' state past its retention.

`$LATHE_STATE_DIR/sessions/<id>/` holds a session's persisted tool outputs (which can be large),
the journal of its atomic writes and its writer lock. At each start lathe removes:
- the temporary files of atomic writes whose writer died (tools/files/atomic.py), in any folder;
- working-folder files (`lathe-pwd-*`) of Bash commands a killed lathe never finished;
- the whole folder of a session last used more than `cleanup_period_days` ago (settings, like
  Claude Code's `cleanupPeriodDays`; default 30). Transcripts are not touched.
A session whose lock is held (a lathe is using it now) is never touched.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from app.session_lock import LOCK_NAME
from tools.files.atomic import clean_interrupted_writes

DEFAULT_RETENTION_DAYS = 30
PWD_PREFIX = "lathe-pwd-"


@dataclass
class CleanupReport:
    temp_files: list[str] = field(default_factory=list)
    pwd_files: int = 0
    sessions: list[str] = field(default_factory=list)


def _newest_mtime(folder: Path) -> float:
    newest = folder.stat().st_mtime
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            try:
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
            except OSError:
                continue
    return newest


def _try_lock(folder: Path) -> int | None:
    """The session's lock, taken (an fd to close; -1 when the session never had a lock file),
    or None when a running lathe holds it. Never created here: that would make it look used."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return -1
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def clean_state(state: Path, retention_days: int, now: float | None = None) -> CleanupReport:
    """The interrupted writes' temporary files, the leftovers and the expired sessions."""
    report = CleanupReport()
    sessions = state / "sessions"
    if not sessions.is_dir():
        return report
    report.temp_files = clean_interrupted_writes(sessions)
    _clean_sessions(sessions, retention_days, report, now)
    return report


def _clean_sessions(
    sessions: Path, retention_days: int, report: CleanupReport, now: float | None
) -> None:
    now = time.time() if now is None else now
    if not sessions.is_dir():
        return
    for folder in sessions.iterdir():
        if not folder.is_dir() or folder.is_symlink():
            continue
        fd = _try_lock(folder)
        if fd is None:
            continue
        try:
            if now - _newest_mtime(folder) > retention_days * 86400:
                shutil.rmtree(folder, ignore_errors=True)
                report.sessions.append(folder.name)
                continue
            report.pwd_files += clean_session_leftovers(folder)
        except OSError:
            continue
        finally:
            if fd >= 0:
                os.close(fd)


def clean_session_leftovers(folder: Path) -> int:
    """Remove a session's working-folder files of Bash commands that never finished; only call
    it holding the session's lock, before any command of this lathe started."""
    removed = 0
    for leftover in (folder / "tool-results").glob(f"{PWD_PREFIX}*"):
        try:
            leftover.unlink(missing_ok=True)
        except OSError:
            continue
        removed += 1
    return removed


def clean_state_at_start(state: Path, retention_days: int | None) -> threading.Thread:
    """The temporary files now (a quick look at the journals: a -p run may be short), the rest
    in the background so a large folder never holds up the session."""
    sessions = state / "sessions"
    if sessions.is_dir():
        clean_interrupted_writes(sessions)
    thread = threading.Thread(
        target=_clean_sessions,
        args=(sessions, retention_days or DEFAULT_RETENTION_DAYS, CleanupReport(), None),
        name="lathe-state-cleanup",
        daemon=True,
    )
    thread.start()
    return thread
