"""The line filter in front of the ACP library: only JSON objects reach it.

The library's receive loop takes any JSON value and fails on one that is not an object (its
death would leave running tools without their last update), and it drops lines that are not
JSON without an answer. So lathe reads stdin itself and answers such lines as JSON-RPC 2.0
says: -32700 for a line that is not JSON (or not UTF-8), -32600 for JSON that is not a request
object (batches are not supported). The objects go on to the library's reader unchanged.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def check_line(line: bytes) -> dict[str, Any] | None:
    """None for a line the library may take; else the JSON-RPC error response to send."""
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(PARSE_ERROR, "Parse error: the line is not JSON")
    if isinstance(value, dict):
        return _check_object(value)
    if isinstance(value, list):
        return _error(INVALID_REQUEST, "Invalid Request: batches are not supported")
    return _error(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")


def _check_object(value: dict[str, Any]) -> dict[str, Any] | None:
    """JSON-RPC 2.0's shape: `"jsonrpc": "2.0"`, and a request or notification (`method`) or a
    response (`id` with `result` or `error`). Anything else is answered, never dropped."""
    ident = value.get("id")
    ident = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
    if value.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', ident)
    if isinstance(value.get("method"), str):
        return None
    if "id" in value and ("result" in value or "error" in value):
        return None
    return _error(INVALID_REQUEST, "Invalid Request: no method, result or error", ident)


def _error(code: int, message: str, ident: str | int | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


async def read_line(reader: asyncio.StreamReader) -> bytes:
    """One line, however long (b"" at the end of the stream)."""
    chunks: list[bytes] = []
    while True:
        try:
            chunks.append(await reader.readuntil(b"\n"))
            return b"".join(chunks)
        except asyncio.LimitOverrunError as exc:
            chunks.append(await reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)


async def pump(
    raw: asyncio.StreamReader,
    library: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    on_eof: Callable[[], None],
) -> None:
    """Copy the client's valid lines to the library's reader, answer the others; at the end
    of stdin call `on_eof` (the library is not told, so the connection stays up while the
    sessions end and send their last updates)."""
    while True:
        try:
            line = await read_line(raw)
        except Exception:  # a broken stdin ends the connection as its end does
            line = b""
        if not line:
            on_eof()
            return
        line = line.strip()
        if not line:
            continue
        error = check_line(line)
        if error is None:
            library.feed_data(line + b"\n")
        else:
            # One whole line in one write, as the library writes its own: lines never mix.
            writer.write((json.dumps(error, separators=(",", ":")) + "\n").encode())
