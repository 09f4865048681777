"""LATHE_LOG records an MCP server's failure with its traceback (the UI shows one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp import McpManager, McpOptions
from app.mcp.config import ServerSpec


async def test_a_failing_server_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "lathe.log"
    monkeypatch.setenv("LATHE_LOG", str(log))
    spec = ServerSpec("ghost", "stdio", "test", "no-such-command-lathe-test", ())
    async with McpManager([spec], McpOptions(connect_timeout=8.0)) as manager:
        await manager.start()
        assert manager.server("ghost").status == "failed"  # type: ignore[union-attr]
    text = log.read_text()
    assert "area=mcp" in text and 'MCP server "ghost" failed (pending)' in text
    assert "Traceback (most recent call last):" in text and "no-such-command-lathe-test" in text
