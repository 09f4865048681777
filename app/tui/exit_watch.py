"""The TUI's end when the terminal goes: SIGHUP (a closed window or tmux pane), SIGTERM, or a
terminal that stopped answering without a signal (SIGHUP ignored, as under `nohup`).

Each stops the running turn as Ctrl+C does (its tools and their process groups stop, the transcript
gets the synthetic results), then quits as Ctrl+Q does (SessionEnd hooks, background shells and MCP
servers stop) with exit status 128 + the signal (129 for a lost terminal). app/exit_signals.py
forces the exit if that takes too long; the reaper (tools/process/owner.py) catches the rest.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import TYPE_CHECKING

from app.exit_signals import ExitSignals, exit_code, silence_stdio

if TYPE_CHECKING:
    from app.tui.app import LatheApp

_WATCHED = (signal.SIGTERM, signal.SIGHUP)
# How often the terminal is checked. Without it a hung-up terminal reads as end-of-file for ever,
# which Textual's input thread takes as "no input yet" and spins on.
TERMINAL_CHECK_S = 1.0


def terminal_alive(fd: int) -> bool:
    """False once the terminal on `fd` has hung up: its ioctls then fail with EIO."""
    try:
        os.tcgetpgrp(fd)
    except OSError:
        return False
    return True


def _terminal_fd() -> int | None:
    stream = sys.__stdin__
    try:
        fd = stream.fileno() if stream is not None else 0
    except (OSError, ValueError):
        return None
    return fd if os.isatty(fd) and terminal_alive(fd) else None


class ExitWatch:
    """Owned by the App: the signals and the terminal check that end it."""

    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self.exit_signal: int | None = None
        self._exit_signals = ExitSignals(self._stop_for_signal)
        self._terminal: int | None = None

    def start(self) -> None:
        """On the App's loop, once mounted; not in tests' headless runs (no terminal, no signals
        that are ours to take)."""
        if self.app.is_headless:
            return
        loop = asyncio.get_running_loop()
        for sig in _WATCHED:
            if signal.getsignal(sig) == signal.SIG_IGN:
                continue  # under nohup; the terminal check below still sees the terminal go
            try:
                loop.add_signal_handler(sig, self._exit_signals, int(sig))
            except (NotImplementedError, RuntimeError, ValueError):
                continue
        fd = _terminal_fd()
        if fd is not None:
            self._terminal = fd
            self.app.set_interval(TERMINAL_CHECK_S, self._check_terminal, name="terminal-check")

    def _check_terminal(self) -> None:
        fd = self._terminal
        if self.exit_signal is None and fd is not None and not terminal_alive(fd):
            self._exit_signals(int(signal.SIGHUP))

    def _stop_for_signal(self, sig: int) -> None:
        self.exit_signal = sig
        if sig == signal.SIGHUP:
            # Nobody can see the screen: writes to it would fail (EIO) and end the run uncleanly.
            silence_stdio()
        self.app.turns.queued.clear()  # no new turn starts after the one being stopped
        session = self.app.session
        if session is not None:
            session.interrupt()
        self.app.run_worker(self._exit_after_turn(sig), group="exit", exit_on_error=False)

    async def _exit_after_turn(self, sig: int) -> None:
        # The turn records its synthetic results before the App (and the session) close.
        for worker in [w for w in self.app.workers if w.group == "turn"]:
            try:
                await worker.wait()
            except Exception:  # a turn that failed or was cancelled has ended all the same
                pass
        self.app.exit(exit_code(sig), return_code=exit_code(sig))
