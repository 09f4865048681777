"""MCP: connect time, call latency over stdio and HTTP, start with a dead server, deferral cost."""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types

from app.mcp import McpManager, McpOptions, split_deferred
from app.mcp.bridge import McpTool
from app.mcp.config import ServerSpec
from bench.table import Row
from tools.abort import AbortSignal
from tools.registry import assemble_tool_pool, get_all_base_tools

SERVER = (
    Path(__file__).parent.parent / "tests" / "integration" / "mcp" / "servers" / "demo_server.py"
)
AREA = "mcp"


def _stdio(name: str, mode: str = "stdio") -> ServerSpec:
    return ServerSpec(name, "stdio", "bench", sys.executable, (str(SERVER), mode))


async def _call_latency(manager: McpManager, tool_name: str, n: int) -> float:
    tool = next(t for t in manager.tools() if t.name == tool_name)
    assert isinstance(tool, McpTool)
    abort = AbortSignal()
    samples = []
    for i in range(n):
        start = time.perf_counter()
        await tool.caller.call_tool(tool.tool_name, {"text": str(i)}, abort)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


async def _stdio_figures() -> list[Row]:
    rows: list[Row] = []
    connects = []
    for i in range(3):
        manager = McpManager([_stdio(f"s{i}")], McpOptions(connect_timeout=10))
        start = time.perf_counter()
        await manager.start()
        connects.append(time.perf_counter() - start)
        if i == 2:
            ms = await _call_latency(manager, f"mcp__s{i}__echo", 50)
            rows.append(
                Row(AREA, "call latency, stdio (median of 50)", f"{ms:.1f} ms", "< 20 ms", ms < 20)
            )
        await manager.close()
    best = min(connects)
    rows.insert(
        0, Row(AREA, "connect one stdio server", f"{best * 1000:.0f} ms", "< 2000 ms", best < 2)
    )
    # A server that never answers must not hold up the first prompt.
    manager = McpManager([_stdio("good"), _stdio("mute", "silent")], McpOptions(connect_timeout=10))
    start = time.perf_counter()
    await manager.start(timeout=0.5)
    waited = time.perf_counter() - start
    rows.append(
        Row(
            AREA,
            "start(0.5 s) with a mute server",
            f"{waited * 1000:.0f} ms",
            "< 600 ms",
            waited < 0.6,
        )
    )
    start = time.perf_counter()
    await manager.close()
    closed = time.perf_counter() - start
    rows.append(
        Row(
            AREA,
            "close with a mute server (kill path)",
            f"{closed * 1000:.0f} ms",
            "< 5000 ms",
            closed < 5,
        )
    )
    return rows


def _start_http() -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    return proc, port


async def _http_figures(port: int) -> list[Row]:
    spec = ServerSpec("web", "http", "bench", url=f"http://127.0.0.1:{port}/mcp")
    async with McpManager([spec], McpOptions(connect_timeout=10)) as manager:
        await manager.start()
        ms = await _call_latency(manager, "mcp__web__echo", 50)
    return [Row(AREA, "call latency, HTTP (median of 50)", f"{ms:.1f} ms", "< 30 ms", ms < 30)]


class _NoServer:
    server_name = "big"

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], abort: AbortSignal
    ) -> types.CallToolResult:
        raise AssertionError


def _deferral() -> Row:
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "x" * 200}}}
    mcp = [
        McpTool(_NoServer(), types.Tool(name=f"t{i}", description="d" * 300, input_schema=schema))
        for i in range(200)
    ]
    pool = assemble_tool_pool(get_all_base_tools(), mcp)
    start = time.perf_counter()
    for _ in range(20):
        split = split_deferred(pool.tools)
    ms = (time.perf_counter() - start) / 20 * 1000
    assert len(split.deferred) == 200
    return Row(AREA, "split_deferred, 211 tools", f"{ms:.2f} ms", "< 10 ms", ms < 10)


def run() -> list[Row]:
    proc, port = _start_http()
    try:

        async def main() -> list[Row]:
            return [*(await _stdio_figures()), *(await _http_figures(port)), _deferral()]

        return asyncio.run(main())
    finally:
        proc.terminate()
        proc.wait(5)
