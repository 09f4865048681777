"""TUI benchmarks (issue 7), measured in-process on a headless App at 120x40.

These drive the real App through `handle_engine_event` with real engine events; the black-box tmux
versions of the streaming and start-up targets need the wired Session and are still to come.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import time

from app.engine.events import TextDelta, TurnStarted
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolStarted
from app.execution.outcome import CallOutcome
from app.tui.app import LatheApp
from app.tui.ports import TuiConfig
from bench.table import Row
from tools.base import ToolProgress
from widgets.tool_block import ToolBlock

SIZE = (120, 40)


def _app(**kw: object) -> LatheApp:
    return LatheApp(TuiConfig(folder="~/bench", branch="main", model="bench", **kw))  # type: ignore[arg-type]


def _outcome(tid: str) -> CallOutcome:
    block = {"type": "tool_result", "tool_use_id": tid, "content": "ok"}
    return CallOutcome(tid, "Read", block, False)


async def _streaming() -> float:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        await pilot.pause()
        start = time.perf_counter()
        for i in range(2000):
            app.handle_engine_event(TextDelta(f"w{i} ", 0))
        block = app._assistant
        assert block is not None
        await block.settle()
        await pilot.pause()
        return time.perf_counter() - start


async def _progress() -> tuple[float, float]:
    app = _app(progress_tick_s=0.25)
    async with app.run_test(size=SIZE) as pilot:
        for i in range(16):
            app.handle_engine_event(ToolQueued(f"t{i}", "Bash", {}, f"job {i}", True))
            app.handle_engine_event(ToolStarted(f"t{i}", "Bash", time.monotonic()))
        await pilot.pause()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        lat: list[float] = []
        for tick in range(100):  # 2 s at 50 events/s per tool
            t0 = time.perf_counter()
            for i in range(16):
                app.handle_engine_event(
                    ToolProgressed(f"t{i}", ToolProgress(output=f"line {tick}\n"), time.monotonic())
                )
            await pilot.pause()  # until the frame with these updates is processed
            lat.append(time.perf_counter() - t0)
            await asyncio.sleep(max(0.0, 0.02 - (time.perf_counter() - t0)))
        cpu = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        p99 = statistics.quantiles(lat, n=100)[98]
        return p99, cpu


async def _long_session() -> tuple[float, float, float, float]:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        conv = app.main.conversation
        from rich.text import Text

        start = time.perf_counter()
        conv.load_history(Text(f"message {i}") for i in range(10_000))
        await pilot.pause()
        resume = time.perf_counter() - start
        t0 = time.perf_counter()
        app.handle_engine_event(ToolQueued("x", "Read", {}, "x.py", True))
        app.handle_engine_event(ToolFinished("x", _outcome("x"), 0.01))
        await pilot.pause()
        append = time.perf_counter() - t0
        t0 = time.perf_counter()
        conv.scroll_home(animate=False)
        await pilot.pause()
        top = time.perf_counter() - t0
        assert len(conv.query(ToolBlock)) == 1
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return resume, append, top, rss_mb


def run() -> list[Row]:
    stream = asyncio.run(_streaming())
    p99, cpu = asyncio.run(_progress())
    resume, append, top, rss = asyncio.run(_long_session())
    ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731
    return [
        Row(
            "tui",
            "stream 2000 deltas, to last word rendered (in-process)",
            ms(stream),
            "<= 250 ms",
            stream <= 0.25,
        ),
        Row(
            "tui", "16 tools x 50 progress/s: event to frame p99", ms(p99), "<= 50 ms", p99 <= 0.05
        ),
        Row(
            "tui",
            "16 tools x 50 progress/s: CPU of one core",
            f"{cpu * 100:.0f}%",
            "<= 60%",
            cpu <= 0.6,
        ),
        Row(
            "tui", "10,000-message history to first frame", ms(resume), "<= 2000 ms", resume <= 2.0
        ),
        Row("tui", "append a block after 10,000 messages", ms(append), "<= 16 ms", append <= 0.016),
        Row("tui", "jump to the top of 10,000 messages", ms(top), "<= 100 ms", top <= 0.1),
        Row("tui", "max RSS of the bench process", f"{rss:.0f} MB", "<= 400 MB", rss <= 400),
    ]
