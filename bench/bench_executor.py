"""Tool system core: pipeline overhead, parallelism and progress latency (issue 2's targets)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Mapping
from typing import Any

from app.execution.events import ExecutorEvent, ToolProgressed
from app.execution.pipeline import PipelineDeps
from app.execution.streaming_executor import StreamingToolExecutor
from bench.table import Row
from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolInput,
    ToolProgress,
    ToolResult,
)


class BenchInput(ToolInput):
    ms: float = 0
    progress: int = 0


class _Base(Tool[BenchInput]):
    input_model = BenchInput
    safe = True

    def __init__(self) -> None:
        self.running = 0
        self.overlaps = 0

    def description(self) -> str:
        return "bench tool"

    def is_concurrency_safe(self, input: BenchInput) -> bool:
        return self.safe

    def is_read_only(self, input: BenchInput) -> bool:
        return True

    async def call(
        self,
        input: BenchInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        self.running += 1
        if not self.safe and self.running > 1:
            self.overlaps += 1
        try:
            for i in range(input.progress):
                on_progress(ToolProgress(text=f"{i}", data={"t": time.perf_counter()}))
                await asyncio.sleep(0)
            if input.ms:
                await asyncio.sleep(input.ms / 1000)
            return ToolResult("ok")
        finally:
            self.running -= 1


class Noop(_Base):
    name = "Noop"


class Unsafe(_Base):
    name = "Unsafe"
    safe = False


def _ctx() -> ToolContext:
    return ToolContext(cwd="/", project_dir="/", working_dirs=("/",))


async def _batch(blocks: list[dict[str, Any]], deps: PipelineDeps, on_event: Any = None) -> float:
    start = time.perf_counter()
    ex = StreamingToolExecutor(deps, _ctx(), on_event=on_event)
    for block in blocks:
        ex.add_tool(block, {})
    results = [o async for o in ex.get_remaining_results()]
    assert len(results) == len(blocks) and not any(r.is_error for r in results)
    return time.perf_counter() - start


def _blocks(name: str, n: int, **input: Any) -> list[dict[str, Any]]:
    return [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": input} for i in range(n)
    ]


async def _overhead() -> float:
    deps = PipelineDeps([Noop()])
    await _batch(_blocks("Noop", 100), deps)  # warm up
    runs = [await _batch(_blocks("Noop", 1000), deps) for _ in range(5)]
    return statistics.median(runs) / 1000 * 1000  # ms per tool


async def _parallel() -> tuple[float, float, int]:
    safe = await _batch(_blocks("Noop", 16, ms=200), PipelineDeps([Noop()]))
    unsafe_tool = Unsafe()
    unsafe = await _batch(_blocks("Unsafe", 4, ms=100), PipelineDeps([unsafe_tool]))
    return safe, unsafe, unsafe_tool.overlaps


async def _progress() -> list[float]:
    queue: asyncio.Queue[ExecutorEvent] = asyncio.Queue()
    latencies: list[float] = []

    async def consume() -> None:
        while True:
            event = await queue.get()
            if isinstance(event, ToolProgressed):
                latencies.append(time.perf_counter() - event.progress.data["t"])
            queue.task_done()

    consumer = asyncio.ensure_future(consume())
    await _batch(_blocks("Noop", 16, progress=500), PipelineDeps([Noop()]), queue.put_nowait)
    await queue.join()
    consumer.cancel()
    return latencies


def run() -> list[Row]:
    per_tool_ms = asyncio.run(_overhead())
    safe_s, unsafe_s, overlaps = asyncio.run(_parallel())
    lat = sorted(asyncio.run(_progress()))
    p99 = lat[int(len(lat) * 0.99) - 1] * 1000
    return [
        Row(
            "executor",
            "pipeline overhead, 1,000 trivial safe tools",
            f"{per_tool_ms:.3f} ms/tool",
            "<= 0.2 ms/tool",
            per_tool_ms <= 0.2,
        ),
        Row(
            "executor",
            "16 safe tools x 200 ms, wall",
            f"{safe_s * 1000:.0f} ms",
            "<= 240 ms",
            safe_s <= 0.240,
        ),
        Row(
            "executor",
            "4 unsafe tools x 100 ms, wall",
            f"{unsafe_s * 1000:.0f} ms",
            ">= 400 ms",
            unsafe_s >= 0.400,
        ),
        Row("executor", "4 unsafe tools, overlaps", str(overlaps), "0", overlaps == 0),
        Row(
            "executor",
            f"progress p99, 16 tools x 500 events ({len(lat)})",
            f"{p99:.3f} ms",
            "<= 2 ms",
            p99 <= 2.0,
        ),
    ]
