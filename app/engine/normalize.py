"""The conversation as the API wants it: roles alternating, no empty messages.

The transcript keeps messages exactly as they happened (an interrupt marker is its own user
message); requests merge consecutive messages of one role, as the API requires.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    # A resumed transcript may hold anything (a hand edit, another tool's writer): a block that is
    # not an object, or an empty text block, would crash the request or earn a 400, so it goes.
    return [
        dict(b)
        for b in content or []
        if isinstance(b, dict)
        and isinstance(b.get("type"), str)
        and not (b["type"] == "text" and not b.get("text"))
    ]


def normalize_for_api(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        blocks = _blocks(message.get("content"))
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            merged = out[-1]["content"] + blocks
            if role == "user":
                # tool_results must open the message: keep them first, in order.
                results = [b for b in merged if b.get("type") == "tool_result"]
                others = [b for b in merged if b.get("type") != "tool_result"]
                merged = results + others
            out[-1] = {"role": role, "content": merged}
        else:
            out.append({"role": role, "content": blocks})
    return out
