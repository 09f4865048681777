"""Bash benchmark: a command printing 200 MB costs bounded memory and lands whole on disk; what
one call costs, and the part of it that makes its processes die with lathe (the reaper).

The tool runs in a fresh child interpreter so that its peak RSS (VmHWM) measures nothing but the
call: the baseline is taken after imports, the peak after the call.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

from bench.table import Row

TOTAL_BYTES = 200_000_000
TARGET_MB = 64

_CHILD = r"""
import asyncio, json, os, sys, time
from tools.base import ToolContext
from tools.bash import BashTool
from tools.persisted import result_path

def hwm_kb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0

async def main(work, total):
    ctx = ToolContext(cwd=work, project_dir=work, working_dirs=(work,),
                      session_dir=os.path.join(work, "session"), tool_use_id="bench_1")
    tool = BashTool()
    cmd = f"yes 'lathe bench line: the quick brown fox jumps over the lazy dog 0123456789' | head -c {total}"
    parsed = tool.parse_input({"command": cmd, "timeout": 600000})
    progress = [0]
    def on_progress(p):
        progress[0] += 1
    try:
        # Reset the peak to the current RSS, so import-time peaks cannot hide the call's.
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    before = hwm_kb()
    start = time.perf_counter()
    result = await tool.call(parsed, ctx, None, {}, on_progress)
    elapsed = time.perf_counter() - start
    after = hwm_kb()
    path = result_path(ctx.session_dir, ctx.tool_use_id)
    print(json.dumps({
        "growth_kb": after - before, "seconds": elapsed, "file_bytes": path.stat().st_size,
        "persisted": result.data.text.startswith("<persisted-output>"),
        "progress_reports": progress[0], "is_error": result.is_error,
    }))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


CALLS = 100
# The reaper's share of a call: the owner marker in the environment and two writes to its pipe.
TARGET_OWNER_US = 200

_PER_CALL_CHILD = r"""
import asyncio, json, os, statistics, sys, time
from tools.base import ToolContext
from tools.bash import BashTool
from tools.process import owner

async def main(work, calls):
    start = time.perf_counter()
    owner._OWNER.ensure_reaper()
    reaper_ms = (time.perf_counter() - start) * 1000
    ctx = ToolContext(cwd=work, project_dir=work, working_dirs=(work,),
                      session_dir=os.path.join(work, "session"), tool_use_id="bench_2")
    tool = BashTool()
    parsed = tool.parse_input({"command": "true"})
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        await tool.call(parsed, ctx, None, {}, lambda p: None)
        times.append(time.perf_counter() - t)
    n = 10000
    t = time.perf_counter()
    for _ in range(n):
        owner.mark_env({})
        owner.register_group(999999)
        owner.unregister_group(999999)
    owner_us = (time.perf_counter() - t) / n * 1e6
    print(json.dumps({"median_ms": statistics.median(times) * 1000, "reaper_ms": reaper_ms,
                      "owner_us": owner_us}))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def _per_call() -> list[Row]:
    with tempfile.TemporaryDirectory() as work:
        proc = subprocess.run(
            [sys.executable, "-c", _PER_CALL_CHILD, work, str(CALLS)],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {proc.stderr[-2000:]}")
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    return [
        Row("bash", f"`true`: one call (median of {CALLS})", f"{m['median_ms']:.1f} ms", "-", None),
        Row(
            "bash",
            "reaper share of a call (marker + 2 pipe writes)",
            f"{m['owner_us']:.1f} us",
            f"<= {TARGET_OWNER_US} us",
            m["owner_us"] <= TARGET_OWNER_US,
        ),
        Row("bash", "reaper start (once per lathe)", f"{m['reaper_ms']:.1f} ms", "-", None),
    ]


def run() -> list[Row]:
    return _big_output() + _per_call()


def _big_output() -> list[Row]:
    with tempfile.TemporaryDirectory() as work:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, work, str(TOTAL_BYTES)],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {proc.stderr[-2000:]}")
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    growth_mb = m["growth_kb"] / 1024
    whole = m["file_bytes"] == TOTAL_BYTES and m["persisted"] and not m["is_error"]
    return [
        Row(
            "bash",
            "print 200 MB: peak RSS growth",
            f"{growth_mb:.1f} MB",
            f"<= {TARGET_MB} MB",
            growth_mb <= TARGET_MB,
        ),
        Row(
            "bash",
            "print 200 MB: persisted file size",
            f"{m['file_bytes']:,} B",
            f"= {TOTAL_BYTES:,} B",
            whole,
        ),
        Row(
            "bash",
            "print 200 MB: wall time / throughput",
            f"{m['seconds']:.2f} s ({TOTAL_BYTES / 1e6 / m['seconds']:.0f} MB/s)",
            "-",
            None,
        ),
        Row("bash", "print 200 MB: progress reports", str(m["progress_reports"]), "<= 30/s", None),
    ]


if __name__ == "__main__":
    from bench.table import print_table

    print_table(run())
