"""Ownership of the processes lathe starts, so that none outlives it.

Every command, hook and MCP server lathe starts carries `LATHE_OWNER=<token>` in its environment
(inherited by whatever it starts in turn), and every process group lathe creates for a command is
registered with the reaper (tools/process/reaper.py), a helper process started with the first of
them. When lathe exits, by any means including SIGKILL, the reaper sees the end of its pipe and
stops the registered groups and the marked processes. While lathe lives, it stops them itself
(tools/process/group.py); `kill_now` is the last resort of a forced exit.

The cost of a command is one `write` of a few bytes per start and per end; the reaper is started
once per lathe process (a fork and exec; lathe does not wait for its interpreter to load).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import MutableMapping
from pathlib import Path

from tools.process.reaper import OWNER_ENV

REAPER_SCRIPT = Path(__file__).with_name("reaper.py")
REAPER_GRACE_S = 2.0


class _Owner:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._token = ""
        self._fd: int | None = None
        self._reaper: subprocess.Popen[bytes] | None = None
        self.groups: set[int] = set()

    @property
    def token(self) -> str:
        self._check_fork()
        if not self._token:
            self._token = secrets.token_hex(8)
        return self._token

    def _check_fork(self) -> None:
        # A forked child (tests, multiprocessing) is a new owner: its token, groups and reaper
        # are its own; the parent's pipe end is closed so the parent's reaper still sees its EOF.
        if self._pid != os.getpid():
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
            self._pid = os.getpid()
            self._token = ""
            self._fd = None
            self._reaper = None
            self.groups = set()

    def ensure_reaper(self) -> None:
        """Start the reaper if it is not running (first use, or it died)."""
        with self._lock:
            self._check_fork()
            if self._fd is not None and self._reaper is not None and self._reaper.poll() is None:
                return
            self._start_locked()

    def _start_locked(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
        read_end, write_end = os.pipe()  # both close-on-exec: no command inherits them
        try:
            self._reaper = subprocess.Popen(
                [sys.executable, "-I", "-S", str(REAPER_SCRIPT), self.token, str(REAPER_GRACE_S)],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                # Out of lathe's session: the terminal's SIGHUP and a kill of lathe's process
                # group do not reach it.
                start_new_session=True,
                close_fds=True,
                cwd="/",  # holds no project folder or mount busy while it waits
            )
        except OSError:
            os.close(write_end)
            self._reaper = None
            return
        finally:
            os.close(read_end)
        self._fd = write_end
        for pgid in self.groups:
            self._write_locked(f"+{pgid}\n")

    def _write_locked(self, line: str) -> None:
        if self._fd is None:
            return
        try:
            os.write(self._fd, line.encode())
        except OSError:  # the reaper is gone; the next start of a command starts a new one
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def register(self, pgid: int) -> None:
        with self._lock:
            self._check_fork()
            self.groups.add(pgid)
            if self._fd is None:
                self._start_locked()
            else:
                self._write_locked(f"+{pgid}\n")

    def unregister(self, pgid: int) -> None:
        with self._lock:
            if pgid in self.groups:
                self.groups.discard(pgid)
                self._write_locked(f"-{pgid}\n")

    @property
    def reaper_pid(self) -> int | None:
        return self._reaper.pid if self._reaper is not None else None


_OWNER = _Owner()


def mark_env(env: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """Add the owner marker to an environment for a child process (and start the reaper first,
    so that a child is covered from the moment it exists)."""
    _OWNER.ensure_reaper()
    env[OWNER_ENV] = _OWNER.token
    return env


def register_group(pgid: int) -> None:
    _OWNER.register(pgid)


def unregister_group(pgid: int) -> None:
    _OWNER.unregister(pgid)


def live_groups() -> frozenset[int]:
    return frozenset(_OWNER.groups)


def reaper_pid() -> int | None:
    return _OWNER.reaper_pid


def kill_now(sig: signal.Signals = signal.SIGKILL) -> None:
    """Signal every registered group at once (a forced exit that has no time to wait)."""
    for pgid in list(_OWNER.groups):
        with contextlib.suppress(OSError):
            os.killpg(pgid, sig)
