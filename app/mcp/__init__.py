"""MCP: server configuration, connections (one task each), and the bridge to Tools.

Entry points: `load_mcp_config(...)` -> `McpManager.from_config(config, cwd=..., env=...)`;
`await manager.start(timeout)`; `manager.tools()` into `assemble_tool_pool`; `manager.status()`
for the headless init line; `describe_servers(manager.servers())` for `/mcp`;
`split_deferred(pool.tools)` for the request's tools.
"""

from app.mcp.bridge import McpTool, mcp_tool_name, normalize_name
from app.mcp.config import McpConfig, McpProblem, ServerSpec, load_mcp_config
from app.mcp.connection import McpOptions, ServerStatus
from app.mcp.deferred import (
    DeferredSplit,
    deferred_tools_text,
    loaded_tool_names,
    split_deferred,
)
from app.mcp.manager import McpManager, ServerInfo, describe_servers

__all__ = [
    "DeferredSplit",
    "McpConfig",
    "McpManager",
    "McpOptions",
    "McpProblem",
    "McpTool",
    "ServerInfo",
    "ServerSpec",
    "ServerStatus",
    "deferred_tools_text",
    "describe_servers",
    "load_mcp_config",
    "loaded_tool_names",
    "mcp_tool_name",
    "normalize_name",
    "split_deferred",
]
