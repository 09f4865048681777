"""stdin as an async stream of lines, for as long as it stays open.

A pipe or socket is read on the event loop; anything else (a regular file given with `<`) in a
thread. A line may be large (an SDK MCP tool's answer, a pasted document): up to 64 MB, as
transcripts; a longer one ends the input with a message, since it cannot be framed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import IO, Any

from app.protocol.wire import valid_text

MAX_LINE = 64 * 1024 * 1024


def scrub(value: Any) -> Any:
    """A parsed JSON value with every lone surrogate in its strings (keys too) made U+FFFD: a
    `\\udcff` escape on stdin would otherwise reach the API request and the transcript, which
    cannot encode it, and fail every later turn too."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


async def read_lines(stream: IO[str]) -> AsyncIterator[tuple[int, str]]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
    except (ValueError, OSError):
        async for item in _threaded(stream):
            yield item
        return
    number = 0
    while True:
        try:
            raw = await reader.readline()
        except ValueError:
            raise OSError(f"a line on stdin is longer than {MAX_LINE} bytes") from None
        if not raw:
            return
        number += 1
        text = raw.decode("utf-8", "replace").strip()
        if text:
            yield number, text


async def _threaded(stream: IO[str]) -> AsyncIterator[tuple[int, str]]:
    number = 0
    while True:
        line = await asyncio.to_thread(stream.readline)
        if not line:
            return
        number += 1
        if line.strip():
            yield number, line.strip()
