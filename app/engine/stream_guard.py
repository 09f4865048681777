"""One model stream, guarded against a server that goes silent and against data that is not SSE JSON.

- Stalls: the streaming request carries an httpx read timeout of LATHE_STREAM_IDLE_TIMEOUT_MS, so
  no byte for that long -- no status line, no headers, no event, not even a `ping` -- fails the
  read, whether the server never answered, sent headers and nothing more, or went quiet mid-stream.
  Byte level on purpose: the SDK swallows `ping` events, so a watchdog on the SDK's events would
  call a slow but pinging stream stalled. Without it a stalled server holds a turn for the SDK's
  600 s.
- Malformed data: a `data:` line that is not JSON (the SDK raises a bare JSONDecodeError), an event
  without a type, or an event of a known type missing its fields is a broken stream too.
Both raise StreamFault, which retry.classify calls retryable: the turn loop retries it (a Retrying
event) or, when tools already ran, keeps the complete part of the response (app/engine/partial.py).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from app.engine.stream import StreamAccumulator, StreamUpdate
from app.model.client import CONNECT_TIMEOUT_S

if TYPE_CHECKING:
    import httpx2

ENV_IDLE_TIMEOUT = "LATHE_STREAM_IDLE_TIMEOUT_MS"
# Claude Code's stream watchdog uses 90 s, proven against the real API; this one is byte level
# (pings count), so it is never stricter than that one. A false alarm costs a regenerated
# response; a stall caught at 90 s instead of 600 s saves most of ten minutes.
DEFAULT_IDLE_TIMEOUT_MS = 90_000


class StreamFault(Exception):
    """A retryable fault of one stream: it stalled or sent malformed data."""


def idle_timeout_s(env: Mapping[str, str] | None = None) -> float:
    """LATHE_STREAM_IDLE_TIMEOUT_MS in seconds; unset, unparsable or not positive: the default."""
    raw = (os.environ if env is None else env).get(ENV_IDLE_TIMEOUT, "").strip()
    try:
        ms = int(raw) if raw else DEFAULT_IDLE_TIMEOUT_MS
    except ValueError:
        ms = DEFAULT_IDLE_TIMEOUT_MS
    return (ms if ms > 0 else DEFAULT_IDLE_TIMEOUT_MS) / 1000


def request_timeout(idle_s: float) -> httpx2.Timeout:
    """Every phase of the request may wait at most `idle_s` for progress (connecting: less)."""
    import httpx2  # with the SDK: imported when the first request goes out, not at start-up

    return httpx2.Timeout(idle_s, connect=min(idle_s, CONNECT_TIMEOUT_S))


def _seconds(value: float) -> str:
    return f"{value:g} s"


async def open_stream(client: Any, params: Mapping[str, Any], idle_s: float) -> Any:
    """Send the streaming request; a server that sends nothing back within `idle_s` is a stall."""
    import anthropic

    try:
        return await client.messages.create(stream=True, timeout=request_timeout(idle_s), **params)
    except anthropic.APITimeoutError as exc:
        raise StreamFault(
            f"The API sent no response for {_seconds(idle_s)} ({ENV_IDLE_TIMEOUT})"
        ) from exc


async def guarded_events(stream: Any, idle_s: float) -> AsyncIterator[Any]:
    """The stream's events; a read that times out or data that does not parse is a StreamFault."""
    import httpx2

    iterator = stream.__aiter__()
    while True:
        try:
            event = await iterator.__anext__()
        except StopAsyncIteration:
            return
        except httpx2.TimeoutException as exc:
            raise StreamFault(
                f"The stream stalled: no data for {_seconds(idle_s)} ({ENV_IDLE_TIMEOUT})"
            ) from exc
        except (ValueError, TypeError, RecursionError) as exc:
            # The SDK parses each `data:` line with json.loads and lets its error escape.
            raise StreamFault(
                f"The stream sent malformed data: {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(getattr(event, "type", None), str):
            raise StreamFault(f"The stream sent an event without a type: {event!r:.120}")
        yield event


def feed(acc: StreamAccumulator, event: Any) -> StreamUpdate | None:
    """acc.feed, with an event of a known type but missing or mistyped fields (a message_start
    without its message) reported as malformed data rather than an AttributeError."""
    try:
        return acc.feed(event)
    except (AttributeError, TypeError, KeyError, ValueError, RecursionError) as exc:
        raise StreamFault(
            f"The stream sent a malformed {event.type} event: {type(exc).__name__}: {exc}"
        ) from exc
