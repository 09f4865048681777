"""Bash benchmark: a command printing 200 MB costs bounded memory and lands whole on disk.

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


def run() -> list[Row]:
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
