"""Atomic file replacement, and the cleanup of temporary files that a killed writer left behind.

A write goes to a temporary file next to the target, is fsynced, then renamed over it: a crash
leaves the old file or the new one, never half of each. What a crash (kill -9, power loss) can
leave is the temporary file itself, in the user's project, as large as the file being written.
So each one has a recognisable name (`.<name>.lathe-<pid>-<token>.tmp`) and, while it exists, a
journal entry in the session's state folder (`pending-writes/<pid>-<token>`, holding its path).
At the next start `clean_interrupted_writes` removes the temporary files of writers that are gone:
only files named in a journal, with the name that entry promises, whose pid is not alive.
"""

from __future__ import annotations

import os
import secrets
import stat
import time
from pathlib import Path

JOURNAL_DIR = "pending-writes"
# A live pid this old is a reused pid, not the writer: its file is stale anyway.
STALE_AFTER_S = 24 * 3600
_MAX_BASE = 80  # the temporary name stays under NAME_MAX however long the target's name is


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def temp_name(target: str, pid: int, token: str) -> str:
    base = os.path.basename(target)[:_MAX_BASE]
    return os.path.join(os.path.dirname(target), f".{base}.lathe-{pid}-{token}.tmp")


def atomic_write(
    path: str, data: bytes, mode: int | None = None, journal: str | Path | None = None
) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target.

    A symlink is kept: its target is what gets replaced. With `journal` (a folder), the
    temporary file is recorded there while it exists, so a crash cannot leave it behind for good.
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    pid, token = os.getpid(), secrets.token_hex(6)
    tmp = temp_name(target, pid, token)
    entry: Path | None = None
    if journal is not None:
        entry = Path(journal) / f"{pid}-{token}"
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            entry.write_bytes(os.fsencode(tmp))
        except OSError:
            entry = None  # the state folder is not writable: the write itself still is
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
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
    finally:
        if entry is not None:
            try:
                entry.unlink()
            except OSError:
                pass
    _fsync_dir(folder)


def _fsync_dir(folder: str) -> None:
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


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def clean_interrupted_writes(sessions_root: Path, now: float | None = None) -> list[str]:
    """Remove the temporary files that writers now gone left (see the module's doc); returns
    their paths. Entries of live writers (other lathes running now) are left alone."""
    removed: list[str] = []
    now = time.time() if now is None else now
    for entry in sessions_root.glob(f"*/{JOURNAL_DIR}/*"):
        pid_text, _, token = entry.name.partition("-")
        if not (pid_text.isdigit() and token.isalnum()):
            continue
        pid = int(pid_text)
        try:
            age = now - entry.stat().st_mtime
            if pid == os.getpid() or (pid_alive(pid) and age < STALE_AFTER_S):
                continue
            tmp = os.fsdecode(entry.read_bytes())
        except OSError:
            continue
        # Only the exact name this entry promises: a corrupted entry never deletes a user's file.
        if os.path.basename(tmp).endswith(f".lathe-{pid}-{token}.tmp") and os.path.basename(
            tmp
        ).startswith("."):
            try:
                os.unlink(tmp)
                removed.append(tmp)
            except FileNotFoundError:
                pass
            except OSError:
                continue  # kept, with its entry, for a later start
        try:
            entry.unlink()
        except OSError:
            pass
    return removed
