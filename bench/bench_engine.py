"""The model loop (issue 6): tool start latency, loop overhead, CLI start-up.

- From a tool_use block's `content_block_stop` to its tool's `call` starting (p99 <= 5 ms).
- The loop's own cost on a stream of 2,000 text deltas, beside the SDK's raw stream floor.
- `lathe --version` (<= 100 ms), and `lathe -p` start to its first API request (<= 1.5 s), with
  the cost of importing the anthropic SDK alone reported beside it as the floor.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.table import Row
from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
)

DELTAS = 2000
ROOT = Path(__file__).resolve().parents[1]


class _In(ToolInput):
    n: int = 0


class StampTool(Tool[_In]):
    name = "Stamp"
    input_model = _In

    def __init__(self) -> None:
        self.starts: dict[str, float] = {}

    def description(self) -> str:
        return "records when it starts"

    def is_concurrency_safe(self, input: _In) -> bool:
        return True

    def is_read_only(self, input: _In) -> bool:
        return True

    async def call(
        self,
        input: _In,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        self.starts[context.tool_use_id] = time.perf_counter()
        return ToolResult("ok")


def _session(turns: list[Any], tool: StampTool, sink: Any, partial: bool) -> Any:
    from app.engine.session import Session, SessionParts
    from app.execution.interfaces import ToolCheckDecider
    from app.model.client import ModelBackend
    from app.model.scenario import Scenario
    from app.model.scripted import ScenarioSource, make_scripted_client
    from tools.registry import assemble_tool_pool

    client = make_scripted_client(ScenarioSource(Scenario(turns=tuple(turns))), max_retries=0)
    pool = assemble_tool_pool([tool])
    ctx = ToolContext(cwd="/", project_dir="/", working_dirs=("/",))
    parts = SessionParts(
        backend=ModelBackend(client, "bench-model", "script"),
        pool=pool,
        context=ctx,
        system=[{"type": "text", "text": "bench"}],
        decider=ToolCheckDecider(),
        prompter=None,
        session_id="bench",
        extra={"include_partial_messages": partial},
    )
    return Session(parts, sink)


async def _tool_start_latency() -> list[float]:
    from app.engine.events import RawStreamEvent
    from app.model.scenario import Block, text_turn, tool_use_block, turn_of

    tool = StampTool()
    turns = []
    for t in range(20):
        blocks = [tool_use_block("Stamp", {"n": i}, f"toolu_{t}_{i}") for i in range(10)]
        blocks.append(Block("text", tuple(f"w{i} " for i in range(50))))
        turns.append(turn_of(blocks))
    turns.append(text_turn("done"))
    stops: dict[int, float] = {}
    order: list[float] = []

    def sink(event: Any) -> None:
        if isinstance(event, RawStreamEvent) and event.event.get("type") == "content_block_stop":
            order.append(time.perf_counter())

    session = _session(turns, tool, sink, partial=True)
    await session.run_turn("go")
    del stops
    # Each turn: 10 tool_use blocks (indices 0-9) then one text block; pair stops with tools in order.
    latencies = []
    ids = [f"toolu_{t}_{i}" for t in range(20) for i in range(10)]
    per_turn = 11
    for k, tool_id in enumerate(ids):
        t, i = divmod(k, 10)
        stop_time = order[t * per_turn + i]
        latencies.append((tool.starts[tool_id] - stop_time) * 1000)
    return latencies


async def _loop_overhead() -> tuple[float, float]:
    from app.model.scenario import Block, Scenario, Turn
    from app.model.scripted import ScenarioSource, make_scripted_client

    turn = Turn(blocks=(Block("text", tuple(f"w{i} " for i in range(DELTAS))),))
    loop_times = []
    for _ in range(6):
        session = _session([turn], StampTool(), None, partial=False)
        start = time.perf_counter()
        await session.run_turn("go")
        loop_times.append((time.perf_counter() - start) * 1000)
    client = make_scripted_client(ScenarioSource(Scenario(turns=(turn,) * 6)), max_retries=0)
    raw_times = []
    for _ in range(6):
        start = time.perf_counter()
        stream = await client.messages.create(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "go"}], stream=True
        )
        async for _event in stream:
            pass
        raw_times.append((time.perf_counter() - start) * 1000)
    return statistics.median(loop_times[1:]), statistics.median(raw_times[1:])


def _time_cmd(args: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, env=env, check=False, cwd=ROOT)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _first_request_ms() -> float:
    sys.path.insert(0, str(ROOT))
    from app.model.scenario import text_turn
    from tests.fakeapi.server import FakeAPI

    times = []
    with FakeAPI([text_turn("hi")] * 5) as fake, tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            ANTHROPIC_API_KEY="k",
            ANTHROPIC_BASE_URL=fake.url,
            HOME=tmp,
            LATHE_STATE_DIR=tmp,
            LATHE_CONFIG_DIR=tmp,
        )
        lathe = str(Path(sys.executable).with_name("lathe"))
        for _ in range(3):
            before = len(fake.requests)
            start = time.perf_counter()
            proc = subprocess.Popen(
                [lathe, "-p", "hi"],
                cwd=tmp,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            while len(fake.requests) == before and proc.poll() is None:
                time.sleep(0.002)
            times.append((time.perf_counter() - start) * 1000)
            proc.wait(timeout=30)
    return statistics.median(times)


def run() -> list[Row]:
    lat = sorted(asyncio.run(_tool_start_latency()))
    p99 = lat[max(0, int(len(lat) * 0.99) - 1)]
    loop_ms, raw_ms = asyncio.run(_loop_overhead())
    overhead = loop_ms - raw_ms
    lathe = str(Path(sys.executable).with_name("lathe"))
    version_ms = _time_cmd([lathe, "--version"], 10)
    bare_ms = _time_cmd([sys.executable, "-c", "pass"], 10)
    import_ms = _time_cmd([sys.executable, "-c", "import anthropic"], 3) - bare_ms
    first_ms = _first_request_ms()
    return [
        Row(
            "engine",
            f"content_block_stop -> tool start, p99 ({len(lat)} tools)",
            f"{p99:.2f} ms",
            "<= 5 ms",
            p99 <= 5.0,
        ),
        Row(
            "engine",
            "loop overhead, 2,000 text deltas (loop - SDK raw)",
            f"{overhead:.0f} ms",
            "<= 150 ms",
            overhead <= 150,
        ),
        Row(
            "engine",
            "  loop total / SDK raw stream floor",
            f"{loop_ms:.0f} / {raw_ms:.0f} ms",
            "-",
            None,
        ),
        Row("engine", "lathe --version", f"{version_ms:.0f} ms", "<= 100 ms", version_ms <= 100),
        Row(
            "engine",
            "lathe -p start -> first API request",
            f"{first_ms:.0f} ms",
            "<= 1500 ms",
            first_ms <= 1500,
        ),
        Row("engine", "  floor: import anthropic alone", f"{import_ms:.0f} ms", "-", None),
        Row(
            "engine",
            "  start-up beyond the SDK import (and python itself)",
            f"{first_ms - import_ms - bare_ms:.0f} ms",
            "<= 300 ms",
            first_ms - import_ms - bare_ms <= 300,
        ),
    ]
