"""Run one foreground shell command: stream, bound, time out, abort, and learn the final `pwd`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.abort import AbortSignal
from tools.process.capture import OutputCapture
from tools.process.group import (
    DEFAULT_GRACE_S,
    group_alive,
    kill_group,
    spawn_shell,
    terminate_group,
    wait_exit,
)

READ_CHUNK = 64 * 1024
# After the group is gone, a process that left it (setsid) may still hold our pipes open; we stop
# waiting for their end-of-file after this long rather than hang the turn.
_DRAIN_TIMEOUT_S = 3.0


@dataclass
class RunOutcome:
    exit_code: int | None
    timed_out: bool
    aborted: bool
    stdout: OutputCapture
    stderr: OutputCapture
    final_cwd: str | None
    stopped_leftovers: bool

    @property
    def signal(self) -> int | None:
        if self.exit_code is not None and self.exit_code < 0:
            return -self.exit_code
        return None


def wrap_with_pwd_trap(command: str, pwd_file: str) -> str:
    """Prefix the command with an EXIT trap that records the final physical working folder.

    A trap (rather than a suffix `; pwd`) also runs after `exit 3` or a failing `set -e` line, and
    a newline before the command keeps a trailing `# comment` in it from swallowing anything. It
    re-exits with the command's status so the exit code is unchanged.
    """
    quoted = shlex.quote(pwd_file)
    trap = f"__lathe_status=$?; pwd -P >| {quoted} 2>/dev/null; exit $__lathe_status"
    return f"trap {shlex.quote(trap)} EXIT\n{command}"


async def pump(
    stream: asyncio.StreamReader | None,
    capture: OutputCapture,
    on_output: Callable[[str], None],
) -> None:
    if stream is None:
        return
    while chunk := await stream.read(READ_CHUNK):
        on_output(capture.feed(chunk))
    on_output(capture.finish())


async def run_command(
    command: str,
    cwd: str,
    *,
    timeout_s: float,
    abort: AbortSignal,
    stdout_spill: Path,
    stderr_spill: Path,
    memory_limit: int,
    on_output: Callable[[str], None],
    grace_s: float = DEFAULT_GRACE_S,
) -> RunOutcome:
    # In the session's folder, not /tmp: a kill -9 leaves it where the next start cleans up.
    stdout_spill.parent.mkdir(parents=True, exist_ok=True)
    fd, pwd_file = tempfile.mkstemp(prefix="lathe-pwd-", dir=stdout_spill.parent)
    os.close(fd)
    stdout = OutputCapture(stdout_spill, memory_limit)
    stderr = OutputCapture(stderr_spill, memory_limit)
    proc: asyncio.subprocess.Process | None = None
    pumps: asyncio.Future[Any] | None = None
    try:
        proc = await spawn_shell(wrap_with_pwd_trap(command, pwd_file), cwd)
        pumps = asyncio.gather(
            pump(proc.stdout, stdout, on_output), pump(proc.stderr, stderr, on_output)
        )
        aborted_event = asyncio.Event()
        remove_listener = abort.add_listener(aborted_event.set)
        waiter = asyncio.ensure_future(wait_exit(proc))
        abort_waiter = asyncio.ensure_future(aborted_event.wait())
        timed_out = aborted = False
        try:
            await asyncio.wait(
                {waiter, abort_waiter}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
            if not waiter.done():
                aborted = aborted_event.is_set()
                timed_out = not aborted
            leftovers = waiter.done() and group_alive(proc.pid)
            # Whatever the command left running in its group goes with it: a foreground command
            # owns its children (servers belong in run_in_background).
            await terminate_group(proc, grace_s)
        finally:
            remove_listener()
            if proc.returncode is None:
                # Cancelled from outside (the turn went away): no time for a grace period.
                kill_group(proc.pid)
            abort_waiter.cancel()
            if not waiter.done():
                waiter.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(pumps), _DRAIN_TIMEOUT_S)
        except TimeoutError:
            pumps.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pumps
            stdout.finish()
            stderr.finish()
        return RunOutcome(
            exit_code=proc.returncode,
            timed_out=timed_out,
            aborted=aborted,
            stdout=stdout,
            stderr=stderr,
            final_cwd=_read_pwd(pwd_file),
            stopped_leftovers=leftovers,
        )
    finally:
        if pumps is not None and not pumps.done():
            pumps.cancel()  # cancelled while draining (the session is closing)
        if proc is not None:
            close_pipes(proc)
        with contextlib.suppress(OSError):
            os.unlink(pwd_file)


def close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close the process's pipes now, while the loop runs. A process that left the group (setsid)
    keeps them open after the group is gone; asyncio would then close them from the transport's
    __del__ after the loop is closed, printing "RuntimeError: Event loop is closed" at exit."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def _read_pwd(pwd_file: str) -> str | None:
    try:
        with open(pwd_file, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        return None
    text = text[:-1] if text.endswith("\n") else text
    return text or None
