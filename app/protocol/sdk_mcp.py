"""SDK MCP servers (`{"type": "sdk"}` in --mcp-config): servers that live inside the SDK program.

lathe's MCP client (app/mcp, the same ClientSession every server gets) talks to them through a
pair of in-memory streams; each JSON-RPC message it writes goes out as an `mcp_message` control
request, and the `mcp_response` in the SDK's answer is fed back as the server's reply, as Claude
Code does. Notifications are sent the same way and their (empty) answers dropped. A request the SDK
fails to answer becomes a JSON-RPC error for that one request, so the call fails and the session
goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from app.protocol.control import ControlChannel, ControlError


class SdkMcpTransports:
    def __init__(self, channel: ControlChannel) -> None:
        self.channel = channel

    @asynccontextmanager
    async def open(self, server_name: str) -> AsyncIterator[tuple[Any, Any]]:
        to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](16)
        tasks: set[asyncio.Task[None]] = set()

        async def forward(message: dict[str, Any]) -> None:
            reply = await self._exchange(server_name, message)
            if reply is not None and "id" in message and "method" in message:
                try:
                    parsed = types.jsonrpc_message_adapter.validate_python(reply)
                except ValueError as exc:
                    await to_client.send(exc)
                    return
                await to_client.send(SessionMessage(parsed))

        async def pump() -> None:
            async with from_client:
                async for item in from_client:
                    message = item.message.model_dump(
                        by_alias=True, mode="json", exclude_unset=True
                    )
                    # Concurrent: a slow tool call must not hold up a ping or a second call.
                    task = asyncio.create_task(forward(message))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)

        pumping = asyncio.create_task(pump())
        try:
            async with to_client, client_reads, client_writes:
                yield client_reads, client_writes
        finally:
            pumping.cancel()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(pumping, *tasks, return_exceptions=True)

    async def _exchange(self, server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        try:
            answer = await self.channel.request(
                "mcp_message", {"server_name": server, "message": message}
            )
        except ControlError as exc:
            if "id" not in message:
                return None
            return _error(message["id"], f"the SDK did not answer: {exc}")
        reply = answer.get("mcp_response")
        if not isinstance(reply, Mapping):
            return _error(message.get("id"), "the SDK's answer has no mcp_response")
        out = dict(reply)
        if "id" in message:
            out["id"] = message["id"]  # the SDK echoes it; never trust a mismatch
        out.setdefault("jsonrpc", "2.0")
        return out


def _error(request_id: Any, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": text}}
