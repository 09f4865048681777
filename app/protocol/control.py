"""Control requests lathe sends to the SDK (can_use_tool, hook_callback, mcp_message).

Each request gets an id and a future; the reader resolves it when the SDK's `control_response`
arrives. A request that is no longer wanted (the turn was interrupted while the SDK's callback ran)
is withdrawn with a `control_cancel_request`, as Claude Code does. When stdin closes, every
request still waiting fails at once, so nothing waits for an answer that can never come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from app.protocol.wire import LineWriter, new_uuid


class ControlError(Exception):
    """The SDK answered a control request with an error, or can no longer answer."""


class ControlChannel:
    def __init__(self, writer: LineWriter) -> None:
        self.writer = writer
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.closed = False

    async def request(self, subtype: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its answer; cancelling the caller withdraws it."""
        request_id, future = self.send(subtype, body)
        try:
            return await future
        except asyncio.CancelledError:
            self.cancel(request_id)
            raise

    def send(
        self, subtype: str, body: Mapping[str, Any]
    ) -> tuple[str, asyncio.Future[dict[str, Any]]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        request_id = new_uuid()
        if self.closed:
            future.set_exception(ControlError("the SDK's input is closed"))
            return request_id, future
        self._pending[request_id] = future
        self.writer.line(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {"subtype": subtype, **body},
            }
        )
        return request_id, future

    def cancel(self, request_id: str) -> None:
        future = self._pending.pop(request_id, None)
        if future is None:
            return
        if not future.done():
            future.cancel()
        self.writer.line({"type": "control_cancel_request", "request_id": request_id})

    def resolve(self, response: Mapping[str, Any]) -> bool:
        """A `control_response` from the SDK; False if no request of ours has its id."""
        request_id = response.get("request_id")
        future = self._pending.pop(request_id, None) if isinstance(request_id, str) else None
        if future is None or future.done():
            return False
        if response.get("subtype") == "error":
            future.set_exception(ControlError(str(response.get("error") or "unknown error")))
        else:
            answer = response.get("response")
            future.set_result(dict(answer) if isinstance(answer, Mapping) else {})
        return True

    def close(self) -> None:
        self.closed = True
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(ControlError("the SDK's input closed before it answered"))
