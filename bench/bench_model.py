"""Model-layer floors: the SDK's raw event stream of 2,000 text deltas from the scripted transport,
and the cost of `import anthropic` in a fresh interpreter. Both are reported without targets: they
are the floors that the loop's own budgets (issue 6) are judged against.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time

from bench.table import Row

DELTAS = 2000
USER = [{"role": "user", "content": "go"}]


async def _stream_ms() -> tuple[float, float]:
    from app.model.scenario import Block, Scenario, Turn
    from app.model.scripted import ScenarioSource, make_scripted_client

    turn = Turn(blocks=(Block("text", tuple(f"w{i} " for i in range(DELTAS))),))
    client = make_scripted_client(ScenarioSource(Scenario(turns=(turn,) * 9)))
    times = []
    for _ in range(6):
        start = time.perf_counter()
        stream = await client.messages.create(model="m", max_tokens=5, messages=USER, stream=True)
        count = 0
        async for event in stream:
            if event.type == "content_block_delta":
                count += 1
        times.append((time.perf_counter() - start) * 1000)
        assert count == DELTAS, count
    high = []
    for _ in range(3):
        start = time.perf_counter()
        async with client.messages.stream(model="m", max_tokens=5, messages=USER) as s:
            async for _text in s.text_stream:
                pass
        high.append((time.perf_counter() - start) * 1000)
    await client.close()
    # the first raw run pays one-off lazy imports
    return statistics.median(times[1:]), statistics.median(high)


def _import_ms() -> float:
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
        base = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        runs.append((base - start) * 1000 - (time.perf_counter() - base) * 1000)
    return statistics.median(runs)


def run() -> list[Row]:
    stream_ms, high_ms = asyncio.run(_stream_ms())
    import_ms = _import_ms()
    return [
        Row(
            "model",
            f"SDK raw event stream, {DELTAS} text deltas (scripted)",
            f"{stream_ms:.1f} ms",
            "floor for the loop's 150 ms",
            None,
        ),
        Row(
            "model",
            f"SDK high-level messages.stream, {DELTAS} deltas",
            f"{high_ms:.1f} ms",
            "reported",
            None,
        ),
        Row(
            "model",
            "import anthropic (fresh process, minus bare start-up)",
            f"{import_ms:.0f} ms",
            "reported",
            None,
        ),
    ]
