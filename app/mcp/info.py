"""What the engine's port says of an MCP server (`/mcp`, the SDK's status), without the MCP SDK.

app.engine.api and app.engine.controls name these types on every path, `lathe -p` before its
first request included; app.mcp.manager imports the SDK (about half a second), which only a
session with servers needs, so the types live here and the manager re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ServerStatus = Literal["pending", "connected", "failed", "disconnected"]


@dataclass(frozen=True)
class ServerInfo:
    """One server as `/mcp` shows it."""

    name: str
    status: ServerStatus
    transport: str
    source: str
    error: str
    tools: tuple[str, ...]
    warnings: tuple[str, ...]
    target: str
