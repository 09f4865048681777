"""The Messages API's server-sent event sequence for one scripted turn, and its wire encoding.

Shared by the offline model (scripted.py) and the HTTP fake of the API (tests/fakeapi), so both
speak exactly the documented stream: message_start, ping, per block content_block_start / deltas /
content_block_stop, message_delta (stop_reason, usage), message_stop.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Mapping
from typing import Any

from app.model.scenario import Turn
from app.model.thinking_seal import seal, sign

Event = tuple[str, dict[str, Any]]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
ERROR_MESSAGES = {
    429: "Number of request tokens has exceeded your per-minute rate limit",
    500: "Internal server error",
    529: "Overloaded",
}


def new_tool_use_id() -> str:
    return "toolu_01" + secrets.token_hex(11)


def new_message_id() -> str:
    return "msg_01" + secrets.token_hex(11)


def encode(event: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def error_body(status: int, message: str = "") -> dict[str, Any]:
    """The API's error shape; `type` follows the status the way the real API maps them."""
    kind = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    text = message or ERROR_MESSAGES.get(status, kind)
    return {"type": "error", "error": {"type": kind, "message": text}}


def _usage(turn: Turn, input_tokens: int) -> dict[str, int]:
    out_default = sum(len(c) for b in turn.blocks for c in b.chunks) // 4 + 1
    return {
        "input_tokens": turn.usage.get("input_tokens", input_tokens),
        "cache_creation_input_tokens": turn.usage.get("cache_creation_input_tokens", 0),
        "cache_read_input_tokens": turn.usage.get("cache_read_input_tokens", 0),
        "output_tokens": turn.usage.get("output_tokens", out_default),
    }


def assign_ids(turn: Turn) -> list[str]:
    """Tool ids for the turn's blocks: the scripted id when given, else a fresh one ("" for text)."""
    return [(b.id or new_tool_use_id()) if b.type == "tool_use" else "" for b in turn.blocks]


def turn_events(
    turn: Turn, *, model: str, input_tokens: int = 0, message_id: str | None = None
) -> Iterator[Event]:
    usage = _usage(turn, input_tokens)
    ids = assign_ids(turn)
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id or new_message_id(),
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {**usage, "output_tokens": 1},
            },
        },
    )
    yield "ping", {"type": "ping"}
    for index, block in enumerate(turn.blocks):
        start: dict[str, Any]
        if block.type == "text":
            start = {"type": "text", "text": ""}
        elif block.type == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
        elif block.type == "redacted_thinking":
            start = {"type": "redacted_thinking", "data": seal(block.text)}
        else:
            start = {"type": "tool_use", "id": ids[index], "name": block.name, "input": {}}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for chunk in block.chunks if block.type != "redacted_thinking" else ():
            delta: dict[str, Any]
            if block.type == "text":
                delta = {"type": "text_delta", "text": chunk}
            elif block.type == "thinking":
                delta = {"type": "thinking_delta", "thinking": chunk}
            else:
                delta = {"type": "input_json_delta", "partial_json": chunk}
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        if block.type == "thinking":
            signature = {"type": "signature_delta", "signature": sign(block.text)}
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": signature},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": turn.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def turn_message(turn: Turn, *, model: str, input_tokens: int = 0) -> dict[str, Any]:
    """The same turn as one non-streaming Messages API response body."""
    ids = assign_ids(turn)
    content: list[dict[str, Any]] = []
    for block, block_id in zip(turn.blocks, ids, strict=True):
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "thinking":
            content.append(
                {"type": "thinking", "thinking": block.text, "signature": sign(block.text)}
            )
        elif block.type == "redacted_thinking":
            content.append({"type": "redacted_thinking", "data": seal(block.text)})
        else:
            tool_input: Any = block.input
            if tool_input is None:
                # Non-streaming responses carry parsed input; broken raw JSON becomes a string.
                tool_input = block.text
            content.append(
                {"type": "tool_use", "id": block_id, "name": block.name, "input": tool_input}
            )
    return {
        "id": new_message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": _usage(turn, input_tokens),
    }


def mid_stream_error() -> bytes:
    return encode("error", error_body(529))


def malformed_event() -> bytes:
    """A `data:` line that is not JSON (a proxy that cut or garbled an event)."""
    return b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta\n\n'
