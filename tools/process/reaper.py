"""The reaper: a helper process that stops what lathe started once lathe is gone, however it went.

Run (by tools/process/owner.py) as `python -I -S reaper.py TOKEN GRACE_S`, in its own session, with
stdin the read end of a pipe whose only writer is lathe. lathe writes `+PGID` when it starts a
process group and `-PGID` when that group is gone, one a line. End of file on stdin means lathe has
exited: the kernel closes the pipe on every kind of exit, a normal one, a signal, SIGKILL, the OOM
killer. Then every registered group, and every process whose environment carries
`LATHE_OWNER=TOKEN` (which also catches processes that left their group with setsid), gets SIGTERM
(and SIGCONT, so a stopped one can act on it), then SIGKILL after the grace period.

Why a pipe and not prctl(PR_SET_PDEATHSIG): the parent-death signal fires when the *thread* that
forked the child exits, not the process (asyncio forks from whichever thread runs the loop, the
SDK and Textual run workers in threads), it reaches only the direct child (`bash -c`, not the
`sleep &` it started), and bash defers its traps until a foreground command ends. The end of a
pipe belongs to the process and is seen by a process that outlives it.

Standard library only, no site-packages (`-I -S`): it starts in a few milliseconds and does not
depend on lathe's environment.
"""

from __future__ import annotations

import os
import signal
import sys
import time

OWNER_ENV = "LATHE_OWNER"
_POLL_S = 0.05
# After SIGKILL, how long to keep looking for stragglers forked during the sweep.
_KILL_WINDOW_S = 2.0


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, process group) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    if len(fields) < 3:
        return None
    return fields[0].decode(), int(fields[2])


def _marked(pid: str, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return marker in fh.read().split(b"\0")
    except OSError:
        return False


def targets(groups: set[int], marker: bytes, me: int) -> dict[int, int]:
    """Live (not zombie) processes in a registered group or carrying the marker: pid -> group."""
    found: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        stat = _stat(entry)
        if stat is None or stat[0] == "Z":
            continue
        if stat[1] in groups or _marked(entry, marker):
            found[int(entry)] = stat[1]
    return found


def _send(pids: dict[int, int], groups: set[int], sig: int) -> None:
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def sweep(groups: set[int], token: str, grace_s: float) -> None:
    marker = f"{OWNER_ENV}={token}".encode()
    me = os.getpid()
    live = targets(groups, marker, me)
    if not live:
        return
    # Only groups with a live member are signalled as groups: a group id that is gone and later
    # reused by someone else is never touched.
    groups = set(live.values()) & groups
    _send(live, groups, signal.SIGTERM)
    _send(live, groups, signal.SIGCONT)
    deadline = time.monotonic() + grace_s
    while live and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        live = targets(groups, marker, me)
    deadline = time.monotonic() + _KILL_WINDOW_S
    while live and time.monotonic() < deadline:
        _send(live, groups, signal.SIGKILL)
        time.sleep(_POLL_S)
        live = targets(groups, marker, me)


def serve(token: str, grace_s: float) -> None:
    groups: set[int] = set()
    pending = b""
    while True:
        try:
            data = os.read(0, 4096)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            break
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            try:
                pgid = int(line[1:])
            except ValueError:
                continue
            if line.startswith(b"+"):
                groups.add(pgid)
            elif line.startswith(b"-"):
                groups.discard(pgid)
    sweep(groups, token, grace_s)


def main(argv: list[str]) -> int:
    # The terminal's signals are not ours: closing it must not stop the one process that cleans
    # up after lathe. SIGTERM (a shutdown) means: clean up now.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os.close(0))
    token = argv[1]
    grace_s = float(argv[2]) if len(argv) > 2 else 2.0
    serve(token, grace_s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
