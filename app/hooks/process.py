"""Run one hook command: `sh -c` in its own process group, stdin JSON in, capped output out.

Whatever the command does (hang, crash, flood its output, not exist, fork daemons that keep the
pipes open) this returns a RawHookRun and never raises, and it never leaves the hook's process
group running after a timeout or an abort.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app import debuglog
from tools.abort import AbortSignal

OUTPUT_CAP_BYTES = 1024 * 1024
_CHUNK = 64 * 1024
# After the shell exits, how long its leftover children may keep our pipes open before we stop
# waiting for them (they are killed then: their output is no longer anyone's).
_PIPE_GRACE_S = 2.0


@dataclass(frozen=True)
class RawHookRun:
    """What happened to one hook process, before any interpretation."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    cancelled: bool = False
    spawn_error: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration_s: float = 0.0


class _CappedReader:
    """Keeps the first `cap` bytes and drains the rest, so a chatty child never blocks on a
    full pipe and never fills our memory."""

    def __init__(self, stream: asyncio.StreamReader, cap: int) -> None:
        self.stream = stream
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    async def run(self) -> None:
        while True:
            chunk = await self.stream.read(_CHUNK)
            if not chunk:
                return
            room = self.cap - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            if len(chunk) > room:
                self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def run_command(
    command: str,
    stdin_data: bytes,
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout_s: float,
    abort: AbortSignal | None = None,
    cap: int = OUTPUT_CAP_BYTES,
    pipe_grace_s: float = _PIPE_GRACE_S,
    args: Sequence[str] | None = None,
) -> RawHookRun:
    """`command` is a shell command line, or with `args` the program to exec with them."""
    started = time.monotonic()
    if abort is not None and abort.aborted:
        return RawHookRun(None, "", "", cancelled=True)
    try:
        argv = (command, *args) if args is not None else ("/bin/sh", "-c", command)
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,  # its own process group: a timeout kills all its children
        )
    except OSError as exc:
        debuglog.record("hook", f"starting the hook command {command!r} failed", exc)
        return RawHookRun(None, "", "", spawn_error=f"{type(exc).__name__}: {exc}")
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    out = _CappedReader(proc.stdout, cap)
    err = _CappedReader(proc.stderr, cap)
    readers = [asyncio.ensure_future(out.run()), asyncio.ensure_future(err.run())]
    writer = asyncio.ensure_future(_write_stdin(proc.stdin, stdin_data))
    # `proc.wait()` also waits for the pipes to close, which a background child of the hook can
    # keep open for ever; the exit status itself is seen by polling `returncode`.
    exited = asyncio.ensure_future(proc.wait())
    shell_gone = asyncio.ensure_future(_until_exit(proc))
    stop = asyncio.Event()
    remove = abort.add_listener(stop.set) if abort is not None else None
    stopper = asyncio.ensure_future(stop.wait())
    timed_out = cancelled = False
    try:
        done, _ = await asyncio.wait(
            {exited, shell_gone, stopper}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        if exited not in done and shell_gone not in done:
            timed_out = stopper not in done
            cancelled = not timed_out
            _kill_group(proc.pid)
        # The shell is gone; its background children may still hold the pipes.
        _, pending = await asyncio.wait(readers, timeout=pipe_grace_s)
        if pending:
            _kill_group(proc.pid)
            await asyncio.wait(pending, timeout=pipe_grace_s)
    finally:
        if remove is not None:
            remove()
        if proc.returncode is None:  # we were cancelled ourselves: leave nothing running
            _kill_group(proc.pid)
        for task in (*readers, writer, stopper, shell_gone, exited):
            task.cancel()
    return RawHookRun(
        exit_code=None if (timed_out or cancelled) else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        cancelled=cancelled,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        duration_s=time.monotonic() - started,
    )


async def _until_exit(proc: asyncio.subprocess.Process) -> None:
    # asyncio signals the exit only together with the pipes' closing; the child watcher sets
    # `returncode` as soon as the shell is reaped, so this is the one place to see it.
    while proc.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(0.02)


async def _write_stdin(stdin: asyncio.StreamWriter, data: bytes) -> None:
    # A hook that never reads stdin (or exits early) must not make us fail or block.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        stdin.write(data)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        stdin.close()
