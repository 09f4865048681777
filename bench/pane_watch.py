"""When text first shows in a tmux pane, to a fraction of a millisecond.

Polling `tmux capture-pane` from a subprocess costs a fork and exec a look (~2 ms on an idle
machine, several under load) plus the sleep between looks, so a clock read that way cannot tell
one frame (16.7 ms) from two. Here one tmux control-mode client (`tmux -C`, attached with
`ignore-size` so it never changes the pane's 120x40) stays connected: tmux tells it the moment
the pane writes anything (`%output`), and it asks for the screen over the same connection, with no
process started per look. A look is also made every `FALLBACK_S` when nothing is written, so a
notification that came before tmux drew its bytes can delay a reading by that much at most.

A reading is the time tmux's answer to the look that first showed the text arrived: never earlier
than the screen showed it, later by one round trip to the tmux server.
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time

FALLBACK_S = 0.002
CONTROL = ["tmux"]
FLAGS = ["-f", "ignore-size,read-only"]  # the pane keeps its size; the watcher types nothing


class PaneWatch:
    def __init__(self, socket: str, target: str = "main:0.0") -> None:
        self.target = target
        self._proc = subprocess.Popen(
            [
                *CONTROL,
                "-L",
                socket,
                "-f",
                "/dev/null",
                "-C",
                "attach-session",
                "-t",
                "main",
                *FLAGS,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            # %output lines carry the pane's raw bytes, a character possibly cut between two.
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self._output: queue.SimpleQueue[float] = queue.SimpleQueue()  # %output arrival times
        self._replies: queue.SimpleQueue[tuple[float, list[str]]] = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._lock = threading.Lock()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        block: list[str] | None = None
        ours = False
        for line in self._proc.stdout:
            now = time.monotonic()
            if block is not None:
                if line.startswith(("%end ", "%error ")):
                    if ours:
                        self._replies.put((now, block))
                    block = None
                else:
                    block.append(line.rstrip("\n"))
            elif line.startswith("%begin "):
                # Flags 1: the answer to a command of ours (the attach's own block has 0).
                block, ours = [], line.split()[-1] == "1"
            elif line.startswith("%output "):
                self._output.put(now)

    def screen(self) -> tuple[float, str]:
        """(when tmux's answer arrived, the pane's text)."""
        assert self._proc.stdin is not None
        with self._lock:
            self._proc.stdin.write(f"capture-pane -p -t {self.target}\n")
            self._proc.stdin.flush()
            when, lines = self._replies.get(timeout=10)
            return when, "\n".join(lines)

    def _drain(self) -> None:
        while True:
            try:
                self._output.get_nowait()
            except queue.Empty:
                return

    def wait_for(self, text: str, timeout: float = 60.0) -> float:
        """The moment `text` is first seen on the pane."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            self._drain()  # output so far is in the look below
            when, screen = self.screen()
            if text in screen:
                return when
            try:
                self._output.get(timeout=FALLBACK_S)
            except queue.Empty:
                pass
        raise AssertionError(f"timed out waiting for {text!r}; the screen was:\n{screen}")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
