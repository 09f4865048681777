"""The progress throttle coalesces bursts and never loses the end of the output."""

from __future__ import annotations

import asyncio

from tools.base import ToolProgress
from tools.process.throttle import MAX_PENDING_CHARS, ProgressThrottle


async def test_burst_is_coalesced_and_complete() -> None:
    reports: list[ToolProgress] = []
    throttle = ProgressThrottle(reports.append)
    chunks = [f"chunk {i}\n" for i in range(2000)]
    for chunk in chunks:
        throttle.push(chunk)
    await asyncio.sleep(0.2)  # let the deferred flush fire
    assert "".join(r.output for r in reports) == "".join(chunks)
    assert len(reports) < 50
    assert reports[-1].text == "chunk 1999"
    assert reports[-1].data["total_chars"] == sum(map(len, chunks))


async def test_flood_is_cut_to_its_tail() -> None:
    reports: list[ToolProgress] = []
    # A slow rate keeps the whole flood in one window whatever the machine's speed.
    throttle = ProgressThrottle(reports.append, rate=0.001)
    throttle.push("first\n")
    for i in range(50_000):
        throttle.push(f"line {i}\n")
    throttle.close()
    assert all(len(r.output) <= MAX_PENDING_CHARS + 4 for r in reports)
    assert reports[-1].output.endswith("line 49999\n")
    assert reports[-1].output.startswith("…\n")


async def test_broken_callback_does_not_raise() -> None:
    def boom(progress: ToolProgress) -> None:
        raise RuntimeError("observer bug")

    throttle = ProgressThrottle(boom)
    throttle.push("x\n")
    throttle.close()
