"""Hooks: cost of a command hook per call, parallelism, timeout kill and output capping."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.config.hooks import HookConfig, parse_hook_sources
from app.execution.interfaces import HookToolCall
from app.hooks.runner import CommandHookRunner
from bench.table import Row
from tools.base import ToolContext

AREA = "hooks"


def _runner(folder: Path, hooks: dict[str, object]) -> CommandHookRunner:
    config: HookConfig = parse_hook_sources([("user", "bench.toml", hooks)], True)
    return CommandHookRunner(
        config,
        session_id="bench",
        transcript_path=str(folder / "t.jsonl"),
        cwd=str(folder),
        project_dir=str(folder),
        permission_mode=lambda: "default",
    )


def _entry(*commands: str, timeout: float | None = None) -> dict[str, object]:
    handlers = [
        {"type": "command", "command": c, **({"timeout": timeout} if timeout else {})}
        for c in commands
    ]
    return {"matcher": "*", "hooks": handlers}


async def _median_ms(runner: CommandHookRunner, ctx: ToolContext, n: int) -> float:
    call = HookToolCall("Bash", {"command": "ls"}, "id")
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await runner.pre_tool_use(call, ctx)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def _measure(folder: Path) -> list[Row]:
    ctx = ToolContext(cwd=str(folder), project_dir=str(folder), working_dirs=(str(folder),))
    script = folder / "allow.sh"
    script.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        'echo \'{"hookSpecificOutput": {"permissionDecision": "allow"}}\'\n'
    )
    script.chmod(0o755)
    none = await _median_ms(_runner(folder, {}), ctx, 200)
    one = await _median_ms(_runner(folder, {"PreToolUse": [_entry(str(script))]}), ctx, 30)
    four_cmds = [f"{script} {i}" for i in range(4)]  # distinct commands: no de-duplication
    four = await _median_ms(_runner(folder, {"PreToolUse": [_entry(*four_cmds)]}), ctx, 30)

    hang = _runner(folder, {"PreToolUse": [_entry("sleep 30", timeout=0.2)]})
    start = time.perf_counter()
    await hang.pre_tool_use(HookToolCall("Bash", {}, "id"), ctx)
    kill_over = (time.perf_counter() - start - 0.2) * 1000

    flood = _runner(folder, {"PreToolUse": [_entry("head -c 50000000 /dev/zero | tr '\\0' x")]})
    start = time.perf_counter()
    await flood.pre_tool_use(HookToolCall("Bash", {}, "id"), ctx)
    flood_s = time.perf_counter() - start

    return [
        Row(
            AREA,
            "PreToolUse, no hooks configured (median)",
            f"{none * 1000:.1f} µs",
            "< 50 µs",
            none < 0.05,
        ),
        Row(AREA, "PreToolUse, one sh hook (median)", f"{one:.1f} ms", "< 50 ms", one < 50),
        Row(
            AREA,
            "PreToolUse, four sh hooks in parallel",
            f"{four:.1f} ms ({four / one:.1f}x one)",
            "< 4x one (sequential)",
            four < 4 * one,
        ),
        Row(
            AREA,
            "hung hook: kill after its timeout",
            f"+{kill_over:.0f} ms",
            "< 200 ms",
            kill_over < 200,
        ),
        Row(AREA, "hook printing 50 MB (capped at 1 MB)", f"{flood_s:.2f} s", "< 2 s", flood_s < 2),
    ]


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_measure(Path(tmp)))
