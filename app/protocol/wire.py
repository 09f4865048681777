"""The lines lathe writes on stdout in stream-json, in Claude Code 2.1.332's shapes.

Recorded from Claude Code run with `-p --output-format stream-json --verbose --input-format
stream-json` against the HTTP fake (CHANGELOG.md lists the fields): every message line carries
`uuid`, `session_id` and `parent_tool_use_id`; an assistant message is written one line per content
block, as Claude Code writes each block when it completes (`stop_reason` null on those lines).
The writer is the only place that touches stdout, so control responses and message lines never
interleave inside a line.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import IO, Any

from app.exit_signals import silence_stdio

# The Claude Code release whose stream-json and control protocol lathe speaks. The SDK reads
# `claude_code_version` from the init line to decide which protocol features it may use.
PROTOCOL_VERSION = "2.1.332"


# A lone surrogate (from a `\udcff` escape in a tool's answer, or a file name decoded with
# surrogateescape) has no UTF-8 form: written as is it becomes a raw byte that kills the SDK's
# reader. json.loads joins valid pairs first, so any surrogate left in a str is lone.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate made U+FFFD, so it always encodes as UTF-8."""
    return LONE_SURROGATE.sub("\ufffd", text)


def new_uuid() -> str:
    return str(uuid.uuid4())


def timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class LineWriter:
    """One JSON object per line on stdout. A reader that went away (EPIPE) ends the output, not
    the run: the turn still stops cleanly and the transcript is kept."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.gone = False

    def line(self, obj: Mapping[str, Any]) -> None:
        if self.gone:
            return
        try:
            text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            self.out.write(valid_text(text) + "\n")
            self.out.flush()
        except (OSError, ValueError):
            self.gone = True
            silence_stdio()


def assistant_lines(
    message: Mapping[str, Any], session_id: str, parent_tool_use_id: str | None = None
) -> list[dict[str, Any]]:
    """One line per content block, each holding the message with that block alone."""
    blocks = list(message.get("content") or [])
    out: list[dict[str, Any]] = []
    for block in blocks or [None]:
        body = dict(message)
        body["content"] = [block] if block is not None else []
        body.setdefault("type", "message")
        body["stop_reason"] = None
        body.setdefault("stop_sequence", None)
        out.append(
            {
                "type": "assistant",
                "message": body,
                "parent_tool_use_id": parent_tool_use_id,
                "session_id": session_id,
                "uuid": new_uuid(),
                "timestamp": timestamp(),
            }
        )
    return out


def user_line(
    message: Mapping[str, Any], session_id: str, parent_tool_use_id: str | None = None
) -> dict[str, Any]:
    return {
        "type": "user",
        "message": dict(message),
        "parent_tool_use_id": parent_tool_use_id,
        "session_id": session_id,
        "uuid": new_uuid(),
        "timestamp": timestamp(),
    }


def stream_event_line(
    event: Mapping[str, Any], session_id: str, parent_tool_use_id: str | None = None
) -> dict[str, Any]:
    return {
        "type": "stream_event",
        "event": dict(event),
        "session_id": session_id,
        "parent_tool_use_id": parent_tool_use_id,
        "uuid": new_uuid(),
    }


def system_line(subtype: str, session_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": subtype,
        **fields,
        "uuid": new_uuid(),
        "session_id": session_id,
    }


def control_response(request_id: str, response: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": dict(response)},
    }


def control_error(request_id: str, error: str, code: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"subtype": "error", "request_id": request_id, "error": error}
    if code:
        body["error_code"] = code
    return {"type": "control_response", "response": body}


class ApiClock:
    """`duration_api_ms`: the time requests were in flight (from a request going out to its
    message being complete), summed over the session, as Claude Code counts it."""

    def __init__(self) -> None:
        self.total_ms = 0
        self._since: float | None = None

    def request_started(self) -> None:
        self._since = time.perf_counter()

    def request_ended(self) -> None:
        if self._since is not None:
            self.total_ms += int((time.perf_counter() - self._since) * 1000)
            self._since = None
