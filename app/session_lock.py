"""One writer per session: an advisory lock (flock) on the session's lock file.

Two lathes appending to one transcript interleave their lines and each one's next request misses
the other's messages, so a second lathe on a session in use is refused (SessionInUse, exit 2 in
`lathe -p`), naming the session and the pid that holds it. The kernel drops a flock when its
holder dies, even by SIGKILL, so a stale lock never blocks: the pid written in the file is only
there to be named. Within one process the lock is shared (the TUI's /resume opens a new Session
before the old one has closed), counted, and released with its last holder.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

LOCK_NAME = "writer.lock"

_held: dict[str, tuple[int, int]] = {}  # lock path -> (fd, holders in this process)
_guard = threading.Lock()


class SessionInUse(Exception):
    def __init__(self, session_id: str, pid: int | None) -> None:
        holder = f"pid {pid}" if pid else "another process"
        super().__init__(
            f"session {session_id} is in use by another lathe ({holder}); wait for it to end, "
            "or start a new session without --continue/--resume"
        )
        self.session_id = session_id
        self.pid = pid


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


class SessionLock:
    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._released = False

    @classmethod
    def acquire(cls, session_dir: Path, session_id: str) -> SessionLock:
        session_dir.mkdir(parents=True, exist_ok=True)
        path = session_dir / LOCK_NAME
        key = str(path)
        with _guard:
            if key in _held:
                fd, count = _held[key]
                _held[key] = (fd, count + 1)
                return cls(path, session_id)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _holder(fd)
                os.close(fd)
                raise SessionInUse(session_id, pid) from None
            except BaseException:
                os.close(fd)
                raise
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            _held[key] = (fd, 1)
        return cls(path, session_id)

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        key = str(self.path)
        with _guard:
            fd, count = _held.get(key, (-1, 0))
            if count > 1:
                _held[key] = (fd, count - 1)
                return
            _held.pop(key, None)
            if fd < 0:
                return
            try:
                os.ftruncate(fd, 0)  # the pid goes before the lock: no one is named wrongly
            except OSError:
                pass
            os.close(fd)  # closing the last descriptor releases the flock
