"""Process groups: every command gets its own, so stopping it stops everything it started.

`bash -c` runs as the leader of a fresh session (`start_new_session=True`), hence of a fresh process
group whose id is its pid. Signalling the group (`killpg`) reaches the grandchildren a command
spawns (`sleep 100 &`, a test runner's workers), which signalling the shell alone would orphan.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import signal
from collections.abc import Mapping

from tools.process.child_env import child_env, env_files
from tools.process.owner import mark_env, register_group, unregister_group

DEFAULT_GRACE_S = 2.0
_POLL_S = 0.05

# Non-interactive defaults: a pager or an editor waiting for a human would hang the command until
# its timeout, since stdin is /dev/null and nobody watches the terminal.
_ENV_OVERRIDES = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "LATHE": "1",
}


def shell_path() -> str:
    return shutil.which("bash") or "/bin/bash"


def command_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    # Without lathe's credentials: the model's command could print them (see child_env).
    env = child_env(os.environ)
    env.update(_ENV_OVERRIDES)
    if extra:
        env.update(extra)
    # Last, so no `extra` can drop it: the reaper finds what lathe started by this marker.
    mark_env(env)
    return env


def _env_prelude() -> str:
    return "".join(
        f". {shlex.quote(path)} >/dev/null 2>&1 </dev/null\n"
        for path in env_files()
        if os.path.isfile(path) and os.path.getsize(path) > 0
    )


async def spawn_shell(script: str, cwd: str) -> asyncio.subprocess.Process:
    """Start `bash -c script` in `cwd` as the leader of its own process group, after sourcing
    the SessionStart hooks' CLAUDE_ENV_FILEs (an empty or broken one is skipped quietly),
    registered with the reaper so the group is stopped when lathe exits, whatever way it does."""
    prelude = _env_prelude()
    proc = await asyncio.create_subprocess_exec(
        shell_path(),
        "-c",
        prelude + script,
        cwd=cwd,
        env=command_env(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    register_group(proc.pid)
    return proc


def group_alive(pgid: int) -> bool:
    """True while a live (non-zombie) process of the group exists.

    Orphans are re-parented to init, and in containers whose init never reaps, a dead member lingers
    as a zombie that `killpg(pgid, 0)` still finds; /proc tells zombies apart. Without /proc, fall
    back to `killpg`, which at worst waits out the grace period.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _killpg_probe(pgid)
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def _killpg_probe(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def wait_exit(proc: asyncio.subprocess.Process, limit_s: float | None = None) -> bool:
    """Wait until the process itself has exited; True if it did within `limit_s`.

    Not `proc.wait()`: asyncio only resolves that once the stdout/stderr pipes are closed too, and
    a grandchild left running (`server &`) keeps them open, which would hide the exit. The return
    code is set by the child watcher as soon as the process is reaped, so it is polled, with a
    short first interval so that quick commands finish quickly.
    """
    loop = asyncio.get_running_loop()
    deadline = None if limit_s is None else loop.time() + limit_s
    delay = 0.002
    while proc.returncode is None:
        if deadline is not None and loop.time() >= deadline:
            return False
        await asyncio.sleep(delay if deadline is None else min(delay, deadline - loop.time()))
        delay = min(delay * 2, _POLL_S)
    return True


async def terminate_group(
    proc: asyncio.subprocess.Process, grace_s: float = DEFAULT_GRACE_S
) -> bool:
    """SIGTERM the whole group, then SIGKILL whatever is left after `grace_s`.

    Returns True if SIGKILL was needed. The leader is reaped here; the orphaned members are reaped
    by init, which in some containers never happens, so a group of zombies counts as gone once the
    deadline passes and SIGKILL has been sent (a zombie runs no code and holds no pipe).
    """
    pgid = proc.pid
    if not group_alive(pgid):
        await _reap(proc)
        unregister_group(pgid)
        return False
    signal_group(pgid, signal.SIGTERM)
    # A stopped process would never act on SIGTERM; SIGCONT lets it.
    signal_group(pgid, signal.SIGCONT)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while loop.time() < deadline:
        await wait_exit(proc, _POLL_S)
        if proc.returncode is not None and not group_alive(pgid):
            unregister_group(pgid)
            return False
    kill_group(pgid)
    await _reap(proc)
    return True


def kill_group(pgid: int) -> None:
    """SIGKILL the group: nothing in it survives, so the reaper can forget it."""
    signal_group(pgid, signal.SIGKILL)
    unregister_group(pgid)


async def _reap(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
        await wait_exit(proc, 5.0)
