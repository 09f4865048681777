"""MCP: server configuration, connections (one task each), and the bridge to Tools.

Entry points: `load_mcp_config(...)` -> `McpManager.from_config(config, cwd=..., env=...)`;
`await manager.start(timeout)`; `manager.tools()` into `assemble_tool_pool`; `manager.status()`
for the headless init line; `describe_servers(manager.servers())` for `/mcp`;
`split_deferred(pool.tools)` for the request's tools.
"""

from __future__ import annotations

import importlib
from typing import Any

# Names resolved on first use: importing `app.mcp.config` or `app.mcp.deferred` must not load the
# MCP SDK (about half a second), which only a session with servers needs.
_EXPORTS = {
    "DeferredSplit": "app.mcp.deferred",
    "McpConfig": "app.mcp.config",
    "McpManager": "app.mcp.manager",
    "McpOptions": "app.mcp.connection",
    "McpProblem": "app.mcp.config",
    "McpTool": "app.mcp.bridge",
    "ServerInfo": "app.mcp.info",
    "ServerSpec": "app.mcp.config",
    "ServerStatus": "app.mcp.info",
    "deferred_tools_text": "app.mcp.deferred",
    "describe_servers": "app.mcp.manager",
    "load_mcp_config": "app.mcp.config",
    "loaded_tool_names": "app.mcp.deferred",
    "mcp_tool_name": "app.mcp.bridge",
    "normalize_name": "app.mcp.bridge",
    "split_deferred": "app.mcp.deferred",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'app.mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
