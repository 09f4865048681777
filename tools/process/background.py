"""Background shells: commands started with `run_in_background`, read by BashOutput, ended by TaskStop.

Their output goes straight to two files (stdout, stderr) under the session folder, never to
memory, so a server that logs for hours costs disk, not RAM. Each reader keeps its own offset into
the files, which is what "new output since the last read" means.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tools.process.group import (
    DEFAULT_GRACE_S,
    group_alive,
    kill_group,
    spawn_shell,
    terminate_group,
)
from tools.process.limits import ENV, max_output_bytes
from tools.process.owner import unregister_group

READ_CHUNK = 64 * 1024
# The most a single BashOutput read returns; older unread output stays in the log file.
MAX_READ_CHARS = 30_000


def new_shell_id() -> str:
    return f"bash_{secrets.token_hex(4)}"


@dataclass(frozen=True)
class ShellRead:
    """What one BashOutput read saw."""

    status: str
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_omitted: int
    stderr_omitted: int
    filtered_out: int
    # Why a log stopped growing although the command printed on (the cap, a full disk).
    log_notes: tuple[str, ...] = ()


class BackgroundShell:
    """A command running in its own process group, with its output logged to files."""

    def __init__(self, shell_id: str, command: str, description: str, log_dir: Path) -> None:
        self._id = shell_id
        self.command = command
        self._description = description or command
        self.log_dir = log_dir
        self.stdout_path = log_dir / f"{shell_id}.stdout.log"
        self.stderr_path = log_dir / f"{shell_id}.stderr.log"
        self._offsets = {"stdout": 0, "stderr": 0}
        cap = max_output_bytes()
        self._logs = {"stdout": _Log(cap), "stderr": _Log(cap)}
        self._proc: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task[None] | None = None
        self._killed = False
        self._status = "starting"
        self.started_at = time.time()
        self.exit_code: int | None = None
        # Told the words of its end when it ends by itself (tools/context.py report_finished).
        self.on_exit: Callable[[str], None] | None = None

    # -- the BackgroundTask protocol ----------------------------------------------------------------

    kind = "shell"

    @property
    def id(self) -> str:
        return self._id

    @property
    def description(self) -> str:
        return self._description

    @property
    def status(self) -> str:
        """running, completed (exit 0), failed (non-zero exit) or killed."""
        return self._status

    async def stop(self) -> None:
        if self._proc is None or self._status not in ("running", "starting"):
            return
        self._killed = True
        await terminate_group(self._proc, DEFAULT_GRACE_S)
        if self._watch is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._watch), 5.0)
        self._status = "killed"

    # -- lifecycle ------------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    async def start(self, cwd: str) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.stdout_path.touch()
        self.stderr_path.touch()
        self._proc = await spawn_shell(self.command, cwd)
        self._status = "running"
        self._watch = asyncio.ensure_future(self._run(self._proc))

    async def _run(self, proc: asyncio.subprocess.Process) -> None:
        try:
            # Opening two local log files does not block in any way worth a thread. Unbuffered:
            # a write that failed (a full disk) leaves no data behind for close() to fail on.
            with (
                open(self.stdout_path, "ab", buffering=0) as out,  # noqa: ASYNC230
                open(self.stderr_path, "ab", buffering=0) as err,  # noqa: ASYNC230
            ):
                await asyncio.gather(
                    self._logs["stdout"].copy(proc.stdout, out),
                    self._logs["stderr"].copy(proc.stderr, err),
                    proc.wait(),
                )
        except asyncio.CancelledError:
            kill_group(proc.pid)
            raise
        finally:
            if not group_alive(proc.pid):
                unregister_group(proc.pid)
            self.exit_code = proc.returncode
            if self._killed:
                self._status = "killed"
            elif proc.returncode == 0:
                self._status = "completed"
            else:
                self._status = "failed"
            if self.on_exit is not None and not self._killed and proc.returncode is not None:
                self.on_exit(self.finished_words())

    def finished_words(self) -> str:
        """Its end as the user reads it (Claude Code: 'Background command "X" completed (exit
        code 0)'); the model reads BashOutput's text instead."""
        verb = "completed" if self._status == "completed" else "failed"
        return f'Background command "{self._description}" {verb} (exit code {self.exit_code})'

    async def wait(self) -> None:
        """Until the command and every reader of its pipes are done (tests, shutdown)."""
        if self._watch is not None:
            await asyncio.shield(self._watch)

    # -- reading ------------------------------------------------------------------------------------

    def read_new(self, pattern: re.Pattern[str] | None = None) -> ShellRead:
        # The status is taken before the logs: a read that says "completed" has seen everything.
        status, exit_code = self._status, self.exit_code
        stdout, out_omitted, out_filtered = self._read_stream("stdout", self.stdout_path, pattern)
        stderr, err_omitted, err_filtered = self._read_stream("stderr", self.stderr_path, pattern)
        return ShellRead(
            status=status,
            exit_code=exit_code,
            stdout=stdout,
            stderr=stderr,
            stdout_omitted=out_omitted,
            stderr_omitted=err_omitted,
            filtered_out=out_filtered + err_filtered,
            log_notes=tuple(
                note for name, log in self._logs.items() if (note := log.note(name)) is not None
            ),
        )

    def _read_stream(
        self, name: str, path: Path, pattern: re.Pattern[str] | None
    ) -> tuple[str, int, int]:
        """New text of one log since the last read: (text, characters omitted, lines filtered).

        Omitted counts bytes for the part never decoded; close enough for a notice.
        """
        try:
            with open(path, "rb") as fh:
                fh.seek(self._offsets[name])
                data, dropped = _read_whole_chars(fh, self._status == "running")
        except OSError:
            return "", 0, 0
        self._offsets[name] += dropped + len(data)
        text = data.decode("utf-8", errors="replace")
        filtered = 0
        if pattern is not None:
            lines = text.splitlines()
            kept = [line for line in lines if pattern.search(line)]
            filtered = len(lines) - len(kept)
            text = "\n".join(kept)
        omitted = dropped
        if len(text) > MAX_READ_CHARS:
            omitted += len(text) - MAX_READ_CHARS
            text = text[-MAX_READ_CHARS:]
        return text, omitted, filtered


def _read_whole_chars(fh: BinaryIO, still_writing: bool) -> tuple[bytes, int]:
    """Read to the end; while the writer is live, leave a trailing partial UTF-8 character unread.

    Reading is done in blocks, keeping only the last few MB: a reader that falls far behind a
    chatty server gets the end of the output, not a memory spike.
    """
    keep = 4 * MAX_READ_CHARS * 4
    data = b""
    dropped = 0
    while block := fh.read(1 << 20):
        data += block
        if len(data) > keep:
            dropped += len(data) - keep
            data = data[-keep:]
    if still_writing:
        cut = _partial_utf8_suffix(data)
        if cut:
            data = data[:-cut]
    return data, dropped


def _partial_utf8_suffix(data: bytes) -> int:
    """How many trailing bytes form an incomplete UTF-8 sequence (0 if none)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue
        if byte & 0x80 == 0:
            return 0
        need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4
        return back if back < need else 0
    return 0


class _Log:
    """One stream's log file: written up to the cap; a write error stops the writing, never the
    reading (a command blocked on a full pipe would hang until someone stops it)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.written = 0
        self.seen = 0
        self.error: str | None = None

    async def copy(self, stream: asyncio.StreamReader | None, out: BinaryIO) -> None:
        if stream is None:
            return
        while chunk := await stream.read(READ_CHUNK):
            self.seen += len(chunk)
            room = self.cap - self.written
            if self.error is not None or room <= 0:
                continue
            data = chunk[:room]
            try:
                while data:  # an unbuffered write may take only part (a disk filling up)
                    done = out.write(data) or 0
                    if not done:
                        raise OSError(28, "No space left on device")
                    self.written += done
                    data = data[done:]
            except OSError as exc:
                self.error = f"{exc.strerror or exc}"

    def note(self, name: str) -> str | None:
        if self.error is not None:
            return (
                f"The {name} log could not be written ({self.error}) after {self.written} bytes; "
                "later output is lost. The command was not stopped."
            )
        if self.seen > self.cap:
            return (
                f"The {name} log reached its cap of {self.cap} bytes ({ENV}); "
                f"{self.seen - self.cap} later bytes were not kept. The command was not stopped."
            )
        return None
