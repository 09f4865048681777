"""Parse one made-up stream with the SDK before the first real one comes (issue 18).

The SDK's modules are imported as they are first used (app/model/lazy_sdk.py) and it builds its
event models' type information on first use: the first response of a session spent ~20 ms
between its first byte and its first text delta doing that, on the path to the first word on
screen. A front end that has time to spare (the TUI, once it is idle) calls `warm_stream_types`
so that work is done before the user presses Enter. It goes through the SDK's own SSE decoder and
the model construction its streams use (`anthropic._streaming`, `anthropic._models`, private:
pinned with anthropic==2.14.0); anything it does not find or that fails is skipped, since a
missed warm-up costs only those milliseconds later.
"""

from __future__ import annotations

import json
from typing import Any

# One of each event a streamed text answer is made of, as the API sends them.
_EVENTS: tuple[dict[str, Any], ...] = (
    {
        "type": "message_start",
        "message": {
            "id": "msg_warmup",
            "type": "message",
            "role": "assistant",
            "model": "warmup",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "w"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 1},
    },
    {"type": "message_stop"},
)


def warm_stream_types() -> bool:
    """Decode and build one of each stream event as a real stream would. True when it ran."""
    try:
        from anthropic._models import construct_type
        from anthropic._streaming import SSEDecoder
        from anthropic.types.raw_message_stream_event import RawMessageStreamEvent

        decoder = SSEDecoder()
        for event in _EVENTS:
            decoder.decode(f"event: {event['type']}")
            sse = decoder.decode(f"data: {json.dumps(event)}") or decoder.decode("")
            data = sse.json() if sse is not None else event
            built = construct_type(type_=RawMessageStreamEvent, value=data)
            getattr(built, "type", None)
    except Exception:  # a warm-up only: the real stream will do the same work, or fail itself
        return False
    return True
