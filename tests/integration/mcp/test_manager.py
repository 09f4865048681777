"""McpManager against real servers: connecting, failing, timing out, reconnecting, closing."""

from __future__ import annotations

import asyncio

import pytest

from app.mcp import McpManager, McpOptions, describe_servers
from app.mcp.config import ServerSpec
from tests.integration.mcp.conftest import new_marker, server_pids, stdio_spec

FAST = McpOptions(connect_timeout=8.0, call_timeout=8.0)


async def test_stdio_server_connects_and_its_tools_are_bridged() -> None:
    marker = new_marker()
    async with McpManager([stdio_spec(marker=marker)], FAST) as manager:
        await manager.start()
        assert manager.status() == [{"name": "demo", "status": "connected"}]
        tools = {t.name: t for t in manager.tools()}
        assert "mcp__demo__echo" in tools
        assert "mcp__demo__write_file" in tools
        pinned = tools["mcp__demo__pinned_tool_with_spaces"]
        assert pinned.always_load and not pinned.should_defer
        echo = tools["mcp__demo__echo"]
        assert echo.is_mcp and echo.should_defer and not echo.always_load
        assert echo.is_read_only({}) and echo.is_concurrency_safe({})
        assert not echo.is_destructive({})
        assert tools["mcp__demo__write_file"].is_destructive({})
        assert not tools["mcp__demo__add"].is_read_only({})
        assert echo.description() == "Echo the text back."
        assert echo.input_schema()["required"] == ["text"]
        assert server_pids(marker), "the server process should be running while connected"
    assert manager.status() == [{"name": "demo", "status": "disconnected"}]
    assert server_pids(marker) == []


async def test_http_server_connects(http_server: str) -> None:
    spec = ServerSpec("remote", "http", "test", url=http_server, headers={"X-Test": "1"})
    async with McpManager([spec], FAST) as manager:
        await manager.start()
        info = manager.server("remote")
        assert info is not None and info.status == "connected", info
        assert "mcp__remote__echo" in info.tools


async def test_missing_command_fails_with_a_clear_error() -> None:
    spec = ServerSpec("ghost", "stdio", "test", "no-such-command-lathe-test", ())
    async with McpManager([spec], FAST) as manager:
        await manager.start()
        info = manager.server("ghost")
        assert info is not None
        assert info.status == "failed"
        assert "no-such-command-lathe-test" in info.error
        assert "command not found" in info.error
        assert manager.tools() == []
        assert "✘ ghost" in describe_servers(manager.servers())


async def test_script_that_crashes_at_start_reports_its_stderr() -> None:
    import sys

    spec = ServerSpec("broken", "stdio", "test", sys.executable, ("-c", "raise SystemExit('bad')"))
    async with McpManager([spec], FAST) as manager:
        await manager.start()
        info = manager.server("broken")
        assert info is not None and info.status == "failed"
        assert "bad" in info.error


async def test_silent_server_times_out_and_its_process_is_gone() -> None:
    marker = new_marker()
    options = McpOptions(connect_timeout=1.0, call_timeout=5.0)
    async with McpManager([stdio_spec("mute", "silent", marker)], options) as manager:
        await manager.start()
        info = manager.server("mute")
        assert info is not None and info.status == "failed"
        assert "no answer within 1 s" in info.error
    assert server_pids(marker) == []


async def test_garbage_on_stdout_is_reported() -> None:
    marker = new_marker()
    options = McpOptions(connect_timeout=1.0, call_timeout=5.0)
    async with McpManager([stdio_spec("noisy", "garbage", marker)], options) as manager:
        await manager.start()
        info = manager.server("noisy")
        assert info is not None and info.status == "failed"
        assert "not JSON-RPC" in info.error
    assert server_pids(marker) == []


async def test_slow_server_does_not_hold_up_start_and_good_ones_still_connect() -> None:
    slow, good = new_marker(), new_marker()
    seen: list[tuple[str, str]] = []
    options = McpOptions(connect_timeout=30.0, call_timeout=5.0)
    manager = McpManager(
        [stdio_spec("slow", "silent", slow), stdio_spec("good", marker=good)],
        options,
        on_change=lambda info: seen.append((info.name, info.status)),
    )
    try:
        # Wait until the good one settles; the slow one is left pending, not awaited.
        await manager.start(timeout=0.0)
        for _ in range(200):
            if manager.server("good").status != "pending":  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.05)
        statuses = {s["name"]: s["status"] for s in manager.status()}
        assert statuses == {"slow": "pending", "good": "connected"}
        assert ("good", "connected") in seen
        assert all(t.name.startswith("mcp__good__") for t in manager.tools())
    finally:
        await manager.close()
    assert {s["name"]: s["status"] for s in manager.status()} == {
        "slow": "disconnected",
        "good": "disconnected",
    }
    assert server_pids(slow) == [] and server_pids(good) == []


async def test_reconnect_replaces_the_process() -> None:
    marker = new_marker()
    async with McpManager([stdio_spec(marker=marker)], FAST) as manager:
        await manager.start()
        first = server_pids(marker)
        info = await manager.reconnect("demo")
        assert info.status == "connected"
        second = server_pids(marker)
        assert len(second) == 1 and second != first
        with pytest.raises(KeyError):
            await manager.reconnect("nope")
    assert server_pids(marker) == []


async def test_many_servers_start_concurrently_and_close_cleanly() -> None:
    markers = [new_marker() for _ in range(4)]
    specs = [stdio_spec(f"s{i}", marker=m) for i, m in enumerate(markers)]
    # Four Python servers importing the MCP SDK at once: on a loaded 2-core machine that alone
    # passed FAST's 8 s; this test is about concurrency and clean close, not the timeout.
    patient = McpOptions(connect_timeout=30.0, call_timeout=8.0)
    async with McpManager(specs, patient) as manager:
        await manager.start()
        assert {s["status"] for s in manager.status()} == {"connected"}
        assert len({t.name for t in manager.tools()}) == len(manager.tools())
    for marker in markers:
        assert server_pids(marker) == []
