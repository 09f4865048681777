"""Finding the processes a real lathe started, and waiting until none of them is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

# A command that leaves four processes: the shell, a grandchild in its group, one that left the
# group (setsid, found by the owner marker alone) and the foreground child; each writes its pid.
SPAWN_FOUR = (
    "echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; setsid sleep 300 & echo $! >> {pids}; "
    "(echo $BASHPID >> {pids}; exec sleep 300)"
)


def alive(pid: int) -> bool:
    """Running, not a zombie (a zombie runs nothing; a container's init may never reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _ppid_map() -> dict[int, int]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            out[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def descendants(root: int) -> set[int]:
    """Every live process below `root` now (the reaper, MCP servers, hooks, shells, ...)."""
    parents = _ppid_map()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return {pid for pid in found if alive(pid)}


def read_pids(path: Path) -> list[int]:
    try:
        return [int(x) for x in path.read_text().split()]
    except (OSError, ValueError):
        return []


def wait_pids(path: Path, count: int, timeout: float = 40.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(pids := read_pids(path)) < count:
        assert time.monotonic() < deadline, f"only {pids} in {path}"
        time.sleep(0.02)
    return pids


def survivors(pids: set[int], timeout: float = 8.0) -> set[int]:
    """The pids still alive once `timeout` has passed (polled; returns early when none is)."""
    deadline = time.monotonic() + timeout
    left = {p for p in pids if alive(p)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p for p in left if alive(p)}
    return left


def describe(pids: set[int]) -> str:
    parts = []
    for pid in sorted(pids):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            cmd = "?"
        parts.append(f"{pid}: {cmd.strip()}")
    return "; ".join(parts)
