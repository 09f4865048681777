"""What a response broken after a complete tool call keeps of the text on screen (tui-r4 F5).

When a stream breaks after a complete tool_use block, the engine keeps the response up to its
last complete block (app/engine/partial.py) and the conversation continues from there: the text
block that was streaming when the connection broke is not in the kept message, and the model,
which never saw it, writes it again. The screen must then show what the message holds, as Claude
Code does (its cut-off paragraph goes; the continuation shows the sentence once).

The text streamed since the last tool call is one live answer block; the message's text after
its last non-text block is what of it was kept. A complete message always holds everything
that was streamed, so this changes nothing but a cut."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def trailing_text(message: Mapping[str, Any]) -> str:
    """The text blocks after the message's last non-text block (tool_use, thinking), joined as
    the stream showed them."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    tail: list[str] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "text":
            tail.append(str(block.get("text", "")))
        else:
            tail = []
    return "".join(tail)


def kept_part(shown: str, message: Mapping[str, Any]) -> str | None:
    """What the live answer block should hold: None to leave it (the message holds all of it),
    else the kept text ("" when nothing of it was kept: the block goes)."""
    kept = trailing_text(message)
    if shown == kept or not shown.startswith(kept):
        # All of it was kept, or the block is not the message's tail as streamed (a resumed
        # or rebuilt view): nothing to take back.
        return None
    return kept
