"""Claude Code's `statusLine`: a command whose first output line is the TUI's status line.

`{"type": "command", "command": "..."}` runs in `/bin/sh` with Claude Code's stdin JSON
(session_id, transcript_path, cwd, model {id, display_name}, workspace {current_dir,
project_dir}, version, output_style, cost) whenever what it describes changed, at most every
300 ms (a burst of changes makes one run after the window, with the newest state), under a time
limit (`LATHE_STATUS_LINE_TIMEOUT_MS`, default 5 s). It gets what Bash gets: no credentials.
A failing or silent command leaves the last good line; it never stops the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from tools.process.child_env import child_env

THROTTLE_S = 0.3
DEFAULT_TIMEOUT_MS = 5_000


def status_command(setting: Mapping[str, Any] | None) -> str | None:
    """The command of a `statusLine` setting, or None when it is absent or not a command."""
    if not isinstance(setting, Mapping) or setting.get("type", "command") != "command":
        return None
    command = setting.get("command")
    return command.strip() if isinstance(command, str) and command.strip() else None


class StatusLineCommand:
    def __init__(
        self,
        command: str,
        on_line: Callable[[str], None],
        *,
        cwd: str,
        env: Mapping[str, str] | None = None,
        throttle_s: float = THROTTLE_S,
    ) -> None:
        self.command = command
        self.on_line = on_line
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)
        try:
            ms = int(self.env.get("LATHE_STATUS_LINE_TIMEOUT_MS", "") or DEFAULT_TIMEOUT_MS)
        except ValueError:
            ms = DEFAULT_TIMEOUT_MS
        self.timeout_s = max(ms, 1) / 1000
        self.throttle_s = throttle_s
        self._last_sent: str | None = None
        self._pending: str | None = None
        self._last_run = -1e9
        self._task: asyncio.Task[None] | None = None
        self.runs = 0
        self.error: str | None = None

    def changed(self, payload: Mapping[str, Any]) -> None:
        """Call on every change (from the event loop); runs happen at most every throttle_s."""
        text = json.dumps(payload, ensure_ascii=False, default=str)
        if text == self._last_sent and self._pending is None:
            return
        self._pending = text
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        while self._pending is not None:
            wait = self._last_run + self.throttle_s - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            text, self._pending = self._pending, None
            if text is None or text == self._last_sent:
                continue
            self._last_sent = text
            self._last_run = time.monotonic()
            line = await self._run(text)
            if line is not None:
                self.on_line(line)

    async def _run(self, stdin: str) -> str | None:
        self.runs += 1
        try:
            proc = await asyncio.create_subprocess_exec(
                "/bin/sh",
                "-c",
                self.command,
                cwd=self.cwd,
                env=child_env(self.env),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            self.error = f"statusLine `{self.command}` could not run: {exc}"
            return None
        try:
            out, _ = await asyncio.wait_for(proc.communicate(stdin.encode()), self.timeout_s)
        except TimeoutError:
            _kill(proc)
            self.error = f"statusLine `{self.command}` timed out after {self.timeout_s:g} s"
            return None
        except asyncio.CancelledError:
            _kill(proc)
            raise
        if proc.returncode != 0:
            self.error = f"statusLine `{self.command}` exited with {proc.returncode}"
            return None
        lines = out.decode("utf-8", "replace").splitlines()
        first = next((ln for ln in lines if ln.strip()), "")
        return first or None

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()


def _kill(proc: asyncio.subprocess.Process) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def status_payload(
    *,
    session_id: str,
    transcript_path: str,
    cwd: str,
    project_dir: str,
    model: str,
    version: str,
    cost_usd: float,
    duration_ms: int,
    lines_added: int = 0,
    lines_removed: int = 0,
) -> dict[str, Any]:
    """Claude Code's status line input (`hook_event_name` "Status")."""
    return {
        "hook_event_name": "Status",
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": cwd,
        "model": {"id": model, "display_name": display_name(model)},
        "workspace": {"current_dir": cwd, "project_dir": project_dir},
        "version": version,
        "output_style": {"name": "default"},
        "cost": {
            "total_cost_usd": round(cost_usd, 6),
            "total_duration_ms": duration_ms,
            "total_api_duration_ms": 0,
            "total_lines_added": lines_added,
            "total_lines_removed": lines_removed,
        },
    }


def display_name(model: str) -> str:
    """`claude-opus-4-1-20250805` -> `Opus 4.1`, as Claude Code names them; else the id."""
    parts = model.split("-")
    if len(parts) >= 3 and parts[0] == "claude":
        family = parts[1].capitalize()
        numbers = [p for p in parts[2:] if p.isdigit() and len(p) < 3]
        if numbers:
            return f"{family} {'.'.join(numbers)}"
    return model
