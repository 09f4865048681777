"""SIGINT, SIGTERM and SIGHUP: stop the turn cleanly, then exit with the conventional code.

The first signal interrupts the running turn exactly as Ctrl+C does (the tools stop, their process
groups are stopped, the transcript gets the synthetic results, the session closes) and arms a
deadline. A second signal, or the deadline passing, forces the exit: every registered process group
is killed at once and the process ends with 128 + the signal's number (130, 143, 129), which is what
a shell reports for a program the signal killed. Whatever is left after that (a process that left
its group) is the reaper's (tools/process/owner.py), which also covers SIGKILL.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable

from app import debuglog
from tools.process.owner import kill_now

EXIT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# How long a clean stop may take after the first signal (SessionEnd hooks, TaskStop's grace
# period, MCP servers) before the exit is forced. Tests shorten it with the environment variable.
DEFAULT_DEADLINE_S = 10.0


def exit_code(sig: int) -> int:
    return 128 + sig


def deadline_s() -> float:
    try:
        value = float(os.environ.get("LATHE_SHUTDOWN_DEADLINE_S", "") or DEFAULT_DEADLINE_S)
    except ValueError:
        return DEFAULT_DEADLINE_S
    return value if value > 0 else DEFAULT_DEADLINE_S


def force_exit(sig: int) -> None:
    """Kill every process group lathe started and end the process now."""
    kill_now(signal.SIGKILL)
    silence_stdio()
    os._exit(exit_code(sig))


def silence_stdio() -> None:
    """Point stdout and stderr at /dev/null when the terminal or the reader is gone.

    Python flushes stdout at exit and turns a failed flush (EIO on a hung-up terminal, EPIPE on a
    closed pipe) into exit status 120, which would hide the signal's exit code.
    """
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(null, stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass
    os.close(null)


class ExitSignals:
    """Which exit signal came first, and what to do on each.

    `on_first` runs once, for the first signal (interrupt the turn, or ask the App to exit); a
    second signal or the deadline calls `force_exit`.
    """

    def __init__(self, on_first: Callable[[int], None], deadline: float | None = None) -> None:
        self.received: int | None = None
        self._on_first = on_first
        self._deadline = deadline_s() if deadline is None else deadline
        self._timer: threading.Timer | None = None

    def __call__(self, sig: int) -> None:
        if self.received is not None:
            force_exit(self.received)
            return
        self.received = sig
        self._timer = threading.Timer(self._deadline, force_exit, args=(sig,))
        self._timer.daemon = True
        self._timer.start()
        try:
            self._on_first(sig)
        except Exception as exc:  # a front end that cannot stop cleanly is stopped by force
            debuglog.record("sink", f"the front end's handler of signal {sig} raised", exc)
            force_exit(sig)

    def cancel_deadline(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received is not None else ""


def install(loop_add: Callable[..., None], handler: ExitSignals) -> list[signal.Signals]:
    """Install `handler` for each exit signal through the loop's `add_signal_handler`.

    A signal ignored when lathe started stays ignored: `nohup lathe -p ...` asked to outlive
    the terminal.
    """
    installed = []
    for sig in EXIT_SIGNALS:
        if signal.getsignal(sig) == signal.SIG_IGN:
            continue
        try:
            loop_add(sig, handler, int(sig))
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)
    return installed
