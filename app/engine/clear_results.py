"""Clearing old tool results before a summary is needed.

Outputs of the tools that declare themselves `refetchable` (Read, Grep, Glob, Bash: calling again
with the same input gets the result again) can be fetched again, so once the recent ones exceed a
budget the older ones are replaced by a short placeholder naming the call that produced them.
Clearing changes the prompt from the first cleared message on, which costs the prompt cache from
there: so it happens in batches (only once the excess reaches half the budget), oldest first, and a
cleared result stays cleared, leaving the prefix stable between batches. The newest message's
results are never cleared: the model has not seen them yet.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.context import estimate_tokens
from tools.base import Tool

# Whether the results of the tool of this (wire) name may be cleared.
Clearable = Callable[[str], bool]
CLEARED_PREFIX = "[Old tool result cleared to save context"


@dataclass(frozen=True)
class Cleared:
    results: int = 0
    tokens_saved: int = 0


def refetchable(find: Callable[[str], Tool[Any] | None]) -> Clearable:
    """The tools' own declaration: a name the session does not know is never cleared."""

    def clearable(name: str) -> bool:
        tool = find(name)
        return tool is not None and tool.refetchable

    return clearable


def placeholder(name: str, tool_input: Mapping[str, Any]) -> str:
    shown = json.dumps(dict(tool_input), ensure_ascii=False)
    if len(shown) > 300:
        shown = shown[:300] + "…"
    return (
        f"{CLEARED_PREFIX}: {name} {shown}. Its output was shown earlier; call {name} again with "
        "this input if you need it.]"
    )


def is_cleared(block: Mapping[str, Any]) -> bool:
    content = block.get("content")
    return isinstance(content, str) and content.startswith(CLEARED_PREFIX)


def clear_old_results(
    messages: list[dict[str, Any]],
    budget: int,
    clearable: Clearable,
    *,
    force: bool = False,
    keep_last: int = 1,
) -> Cleared:
    """Clear, in place in `messages` (new message objects), the clearable results older than the
    newest `budget` tokens of them. `force` clears down to the budget whatever the excess (used
    to make room for a summary request)."""
    calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
    found: list[tuple[int, int, int]] = []  # (message index, block index, tokens)
    protected = max(0, len(messages) - keep_last)
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and message.get("role") == "assistant":
                raw = block.get("input")
                calls[str(block.get("id"))] = (
                    str(block.get("name", "")),
                    raw if isinstance(raw, Mapping) else {},
                )
            elif (
                block.get("type") == "tool_result"
                and i < protected
                and not is_cleared(block)
                and clearable(calls.get(str(block.get("tool_use_id")), ("", {}))[0])
            ):
                found.append((i, j, estimate_tokens(block.get("content"))))
    total = sum(t for _, _, t in found)
    excess = total - budget
    if excess <= 0 or (not force and excess < budget // 2):
        return Cleared()
    count = 0
    saved = 0
    for i, j, tokens in found:  # oldest first
        if saved >= excess:
            break
        message = messages[i]
        content = list(message["content"])
        block = content[j]
        name, tool_input = calls[str(block.get("tool_use_id"))]
        text = placeholder(name, tool_input)
        content[j] = {**block, "content": text}
        messages[i] = {**message, "content": content}
        count += 1
        saved += tokens - estimate_tokens(text)
    return Cleared(count, saved)
