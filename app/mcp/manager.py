"""All MCP servers of a session: started together, each with its own time limit.

`await manager.start(timeout)` returns when every server has connected or failed, or when
`timeout` has passed: a server still connecting then stays `pending` and finishes in the background
(`on_change` says when), so a slow server never holds up the first prompt. A server that fails
keeps its error text for `/mcp`, which can `reconnect` it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app import debuglog
from app.mcp.bridge import McpTool
from app.mcp.config import McpConfig, ServerSpec
from app.mcp.connection import McpOptions, ServerConnection, quiet_sdk_logging
from app.mcp.info import ServerInfo, ServerStatus
from tools.base import Tool

__all__ = ["McpManager", "ServerInfo", "ServerStatus", "describe_servers"]


class McpManager:
    def __init__(
        self,
        specs: Sequence[ServerSpec],
        options: McpOptions | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        on_change: Callable[[ServerInfo], None] | None = None,
        sdk_transport: Callable[[str], Any] | None = None,
    ) -> None:
        quiet_sdk_logging()
        self.sdk_transport = sdk_transport
        self.options = options or McpOptions.from_env(env)
        self.cwd = cwd
        self.env = env
        self.on_change = on_change
        self._specs = {spec.name: spec for spec in specs}
        self._connections: dict[str, ServerConnection] = {
            name: self._connection(spec) for name, spec in self._specs.items()
        }

    @classmethod
    def from_config(cls, config: McpConfig, **kwargs: Any) -> McpManager:
        return cls(config.servers, **kwargs)

    def _connection(self, spec: ServerSpec) -> ServerConnection:
        return ServerConnection(
            spec,
            self.options,
            cwd=self.cwd,
            env=self.env,
            on_change=self._changed,
            sdk_transport=self.sdk_transport,
        )

    def _changed(self, connection: ServerConnection) -> None:
        if self.on_change is not None and self._connections.get(connection.spec.name) is connection:
            self.on_change(self._info(connection))

    # -- life cycle -----------------------------------------------------------------------------

    def launch(self) -> None:
        """Start connecting every server without waiting."""
        for connection in self._connections.values():
            connection.launch()

    async def start(self, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Start every server concurrently; return when all settled or after `timeout` seconds."""
        self.launch()
        waits = [c.wait_settled() for c in self._connections.values()]
        if not waits:
            return
        try:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)
        except TimeoutError:
            pass

    async def reconnect(
        self,
        name: str,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> ServerInfo:
        """Close the server's connection (if any) and connect it again."""
        spec = self._specs.get(name)
        if spec is None:
            raise KeyError(f"no MCP server named {name!r}")
        old = self._connections[name]
        fresh = self._connection(spec)
        self._connections[name] = fresh
        await old.close()
        fresh.launch()
        await fresh.wait_settled(timeout)
        return self._info(fresh)

    async def disable(self, name: str) -> ServerInfo:
        """Close one server's connection and offer none of its tools until it is reconnected
        (the SDK's mcp_toggle with enabled false)."""
        connection = self._connections.get(name)
        if connection is None:
            raise KeyError(f"no MCP server named {name!r}")
        await connection.close()
        return self._info(connection)

    async def close(self) -> None:
        """Close every connection; stdio servers' processes are gone when this returns."""
        connections = list(self._connections.values())
        results = await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
        for connection, result in zip(connections, results, strict=True):
            if isinstance(result, Exception):
                debuglog.record(
                    "mcp", f'closing MCP server "{connection.spec.name}" raised', result
                )

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- what the session reads -------------------------------------------------------------------

    def tools(self) -> list[Tool[Any]]:
        """The bridged tools of the connected servers (assemble_tool_pool sorts and filters them)."""
        out: list[Tool[Any]] = []
        for connection in self._connections.values():
            if connection.status == "connected":
                out.extend(connection.tools)
        return out

    def status(self) -> list[dict[str, str]]:
        """For the headless init line: `[{"name": ..., "status": ...}]`."""
        return [{"name": c.spec.name, "status": c.status} for c in self._connections.values()]

    def servers(self) -> list[ServerInfo]:
        return [self._info(c) for c in self._connections.values()]

    def server(self, name: str) -> ServerInfo | None:
        connection = self._connections.get(name)
        return self._info(connection) if connection else None

    def _info(self, c: ServerConnection) -> ServerInfo:
        spec = c.spec
        target = " ".join([spec.command, *spec.args]) if spec.transport == "stdio" else spec.url
        tools: list[McpTool] = c.tools if c.status == "connected" else []
        return ServerInfo(
            name=spec.name,
            status=c.status,
            transport=spec.transport,
            source=spec.source,
            error=c.error,
            tools=tuple(t.name for t in tools),
            warnings=tuple(c.warnings),
            target=target,
        )


def describe_servers(servers: Sequence[ServerInfo]) -> str:
    """The text of `/mcp`: one line per server, its error or its tools below it."""
    if not servers:
        return "No MCP servers configured (settings [mcp.servers] or .mcp.json)."
    lines: list[str] = []
    for s in servers:
        mark = {"connected": "✔", "failed": "✘", "pending": "…", "disconnected": "○"}[s.status]
        count = f", {len(s.tools)} tools" if s.status == "connected" else ""
        lines.append(f"{mark} {s.name} ({s.transport}{count}): {s.status}  [{s.source}]")
        if s.error:
            lines.append(f"    {s.error}")
        for warning in s.warnings:
            lines.append(f"    warning: {warning}")
    return "\n".join(lines)
