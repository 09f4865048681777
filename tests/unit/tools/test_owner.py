"""The reaper: what a process started is stopped when that process dies, even by SIGKILL, and not
before (a command started from a thread that ends keeps running: the parent-death-signal trap)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.e2e.procs import alive, survivors, wait_pids
from tools.process.group import spawn_shell, terminate_group
from tools.process.owner import live_groups

ROOT = Path(__file__).resolve().parents[3]

# A stand-in for lathe: starts a command from a worker thread's own event loop, lets that thread
# end, reports its pids and the reaper's, and waits to be killed.
CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, threading, time
    from tools.process.group import spawn_shell
    from tools.process.owner import reaper_pid
    pids = sys.argv[1]
    command = (
        f"echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; setsid sleep 300 & echo $! >> {pids};"
        f" (echo $BASHPID >> {pids}; exec sleep 300)"
    )
    def start():
        async def go():
            await spawn_shell(command, ".")
        asyncio.run(go())
    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    print(json.dumps({"reaper": reaper_pid()}), flush=True)
    time.sleep(300)
    """
)


def test_sigkill_of_the_owner_stops_everything_and_a_dead_thread_stops_nothing(tmp_path):
    pid_file = tmp_path / "pids"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(pid_file)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        reaper = json.loads(child.stdout.readline())["reaper"]
        pids = set(wait_pids(pid_file, 4))
        time.sleep(0.3)  # the thread that started them is gone; they must still run
        assert all(alive(p) for p in pids), pids
        assert alive(reaper)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert not survivors(pids | {reaper}), "left running after SIGKILL"
    finally:
        if child.poll() is None:
            child.kill()
        for pid in wait_pids(pid_file, 0):
            if alive(pid):
                subprocess.run(["kill", "-9", str(pid)], check=False)


async def test_a_finished_group_is_forgotten(tmp_path):
    proc = await spawn_shell("true", str(tmp_path))
    assert proc.pid in live_groups()
    await terminate_group(proc)
    assert proc.pid not in live_groups()
