"""Making a conversation fit the summary request, losing the least that matters first.

In order, until it fits: old clearable tool results become placeholders; big tool results and
big system reminders (files re-read after an earlier compaction) are cut; then the turns, oldest
first, are reduced to their bones (tool results and reminders become placeholders, long assistant
text and long tool inputs are cut); then long user texts are cut; last, middle messages are left
out. What is never left out: the first message (an earlier compaction's summary, or the user's
first request) and the user's own requests, which a summary must carry on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.clear_results import Clearable, clear_old_results
from app.engine.compact_prompt import SUMMARY_INTRO
from app.engine.context import CHARS_PER_TOKEN, estimate_tokens

RESULT_LEFT_OUT = "[This tool result was left out to fit the summary request.]"
MIDDLE_LEFT_OUT = (
    "[Part of the conversation was left out here to fit the summary request; the user's "
    "messages in it follow.]"
)
TURN_CUT = "[…cut to fit the summary request]"
# What a reduced block keeps, in characters.
SHORT = 300


def _cut(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    return (
        f"{text[:chars]}\n[…{len(text) - chars:,} characters left out to fit the summary request]"
    )


def _is_reminder(block: Mapping[str, Any]) -> bool:
    return block.get("type") == "text" and str(block.get("text", "")).startswith(
        "<system-reminder>"
    )


def _is_summary(block: Mapping[str, Any]) -> bool:
    return block.get("type") == "text" and str(block.get("text", "")).startswith(SUMMARY_INTRO)


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(b) for b in content or [] if isinstance(b, Mapping)]


def _cut_big(message: dict[str, Any], cap_chars: int) -> dict[str, Any]:
    """Big tool results and reminders cut to `cap_chars` (the user's texts stay whole)."""
    out: list[dict[str, Any]] = []
    for block in _blocks(message):
        if block.get("type") == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                text = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
                block = {**block, "content": _cut(text, cap_chars)}
            elif isinstance(content, str):
                block = {**block, "content": _cut(content, cap_chars)}
        elif _is_reminder(block):
            block = {**block, "text": _cut(str(block["text"]), cap_chars)}
        out.append(block)
    return {**message, "content": out}


def _reduce(message: dict[str, Any]) -> dict[str, Any]:
    """A turn reduced to what a summary needs to tell the story: who asked what, which tools."""
    out: list[dict[str, Any]] = []
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "tool_result":
            out.append({**block, "content": RESULT_LEFT_OUT})
        elif _is_reminder(block):
            continue
        elif kind == "text" and message.get("role") == "assistant":
            out.append({**block, "text": _cut(str(block.get("text", "")), SHORT)})
        elif kind == "tool_use" and isinstance(block.get("input"), Mapping):
            shown = {
                k: _cut(v, SHORT) if isinstance(v, str) else v for k, v in block["input"].items()
            }
            out.append({**block, "input": shown})
        elif kind in ("text", "tool_use"):
            out.append(block)
        # images, documents, thinking: left out
    if not out:
        out = [{"type": "text", "text": TURN_CUT}]
    return {**message, "content": out}


def _cut_user_texts(message: dict[str, Any], cap_chars: int) -> dict[str, Any]:
    out = []
    for block in _blocks(message):
        if block.get("type") == "text" and not _is_summary(block):
            block = {**block, "text": _cut(str(block.get("text", "")), cap_chars)}
        out.append(block)
    return {**message, "content": out}


def fit_for_summary(
    messages: list[dict[str, Any]], room: int, results_budget: int, clearable: Clearable
) -> list[dict[str, Any]]:
    """`messages` made to take at most about `room` estimated tokens (see the module doc)."""
    work = [dict(m) for m in messages]
    sizes = [estimate_tokens(m.get("content")) for m in work]
    if sum(sizes) <= room or not work:
        return work
    budget = max(0, min(results_budget, room // 4))
    clear_old_results(work, budget, clearable, force=True, keep_last=0)
    sizes = [estimate_tokens(m.get("content")) for m in work]

    def apply(i: int, new: dict[str, Any]) -> bool:
        work[i] = new
        sizes[i] = estimate_tokens(new.get("content"))
        return sum(sizes) <= room

    cap = max(SHORT, room * CHARS_PER_TOKEN // 8)
    for i in sorted(range(len(work)), key=lambda k: -sizes[k]):  # the biggest first
        if sum(sizes) <= room:
            return work
        apply(i, _cut_big(work[i], cap))
    newest = len(work) - 1
    for i in range(len(work)):  # oldest first; the newest last of all
        if sum(sizes) <= room:
            return work
        if i != newest or len(work) == 1:
            apply(i, _reduce(work[i]))
    for i in sorted(range(len(work)), key=lambda k: -sizes[k]):
        if sum(sizes) <= room:
            return work
        if work[i].get("role") == "user":
            apply(i, _cut_user_texts(work[i], cap))
    return _drop_middle(work, sizes, room)


def _drop_middle(work: list[dict[str, Any]], sizes: list[int], room: int) -> list[dict[str, Any]]:
    """Leave out whole messages after the first, oldest first, down to the newest; the user's
    requests in them are kept beside the placeholder (consecutive user messages are merged by
    normalize_for_api)."""
    if len(work) <= 2:
        return work
    total = sum(sizes)
    k = 1
    while k < len(work) - 1 and total > room:
        total -= sizes[k]
        k += 1
    if k == 1:
        return work
    requests = [
        {"type": "text", "text": str(b.get("text", ""))}
        for m in work[1:k]
        if m.get("role") == "user"
        for b in _blocks(m)
        if b.get("type") == "text" and not _is_reminder(b) and b.get("text") != TURN_CUT
    ]
    placeholder = {
        "role": "user",
        "content": [{"type": "text", "text": MIDDLE_LEFT_OUT}, *requests],
    }
    rest = list(work[k:])
    if rest[0].get("role") == "user":
        kept = [b for b in _blocks(rest[0]) if b.get("type") != "tool_result"]
        rest[0] = {**rest[0], "content": kept or [{"type": "text", "text": TURN_CUT}]}
    return [work[0], placeholder, *rest]
