"""Drive the real `lathe` in a tmux pane, the way a user sees it.

Every driver has its own tmux server (`-L`), so tests in parallel never share panes. Waits poll
`capture-pane`; nothing sleeps a fixed time except the dialog's documented half-second key guard.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 120, 40


def have_tmux() -> bool:
    return shutil.which("tmux") is not None


class Tmux:
    def __init__(self, workdir: Path) -> None:
        self.socket = f"lathe-test-{uuid.uuid4().hex[:10]}"
        self.workdir = workdir
        self.target = "main:0.0"

    def _tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def start_lathe(
        self, cwd: Path, env: Mapping[str, str], args: list[str], *, ignore_hup: bool = False
    ) -> None:
        """Start `python -m app ARGS` in a 120x40 pane; the pane stays after the process ends
        so a crash's traceback can still be read. `ignore_hup` starts it as `nohup` would."""
        script = self.workdir / f"{self.socket}.sh"
        # The tmux server inherits the test process's environment; COLUMNS/LINES there (pytest
        # sets them) would override the pane's real size.
        lines = ["#!/bin/sh", "unset COLUMNS LINES"]
        lines += [f"export {k}={shlex.quote(v)}" for k, v in env.items()]
        lines.append(f"cd {shlex.quote(str(cwd))}")
        if ignore_hup:
            lines.append("trap '' HUP")
        command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "app", *args])
        lines.append(f"exec {command}")
        script.write_text("\n".join(lines) + "\n")
        script.chmod(0o755)
        self._tmux(
            "new-session", "-d", "-s", "main", "-x", str(WIDTH), "-y", str(HEIGHT), str(script)
        )
        self._tmux("set-option", "-t", "main", "remain-on-exit", "on")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.target, check=False)

    def lines(self) -> list[str]:
        return self.screen().splitlines()

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.target, *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.target, "-l", text)

    def click(self, x: int, y: int) -> None:
        """A left click at 0-based cell (x, y), as the xterm SGR mouse sequences a terminal sends
        while the application has mouse reporting on."""
        self.type(f"\x1b[<0;{x + 1};{y + 1}M")
        self.type(f"\x1b[<0;{x + 1};{y + 1}m")

    def wait_for(
        self, what: str | Callable[[str], bool], timeout: float = 15.0, interval: float = 0.05
    ) -> str:
        check = (lambda s: what in s) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(interval)
        raise AssertionError(f"timed out waiting for {what!r}; the screen was:\n{screen}")

    def find(self, text: str) -> tuple[int, int] | None:
        """(x, y) of the first occurrence of `text` on the screen."""
        for y, line in enumerate(self.lines()):
            x = line.find(text)
            if x >= 0:
                return x, y
        return None

    def pane_pid(self) -> int:
        """The pid of the pane's process (the script execs lathe, so lathe's)."""
        return int(self._tmux("display-message", "-p", "-t", self.target, "#{pane_pid}").strip())

    def kill_pane(self) -> None:
        self._tmux("kill-pane", "-t", self.target, check=False)

    def kill(self) -> None:
        self._tmux("kill-server", check=False)
