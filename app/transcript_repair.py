"""Reading a transcript that may be damaged, and repairing its conversation for the next request.

A transcript is hurt by crashes (a torn last line), full disks, old versions that appended onto a
torn line, two writers at once (before the session lock), hand edits and bad bytes. Reading never
gives up on a whole line when part of it can be kept, and never crashes on one: every skip or fix
is a warning naming the line. The repair then makes the conversation one the API accepts, keeping
every real prompt and tool result it can place.

Lines may be in Claude Code's shape (`{"type": "user"|"assistant", "uuid", "parentUuid",
"message": {...}}`, `system` lines for the session's start, /clear and `compact_boundary`), which
lathe writes and Claude Code writes, or in lathe's older one (`{"type": "message", ...}`,
`session`, `clear`, `compact` lines): every rule is keyed on what a line has (a uuid, a
parentUuid, tool_use ids), never on one shape.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from app import jsonlimits

REPAIRED_RESULT = (
    "<tool_use_error>The session ended before this tool returned a result (lathe was stopped). "
    "Its effects, if any, are unknown: check before relying on them.</tool_use_error>"
)
RESUMED_START = "(The start of this conversation could not be read from the transcript.)"

# A real line (a tool result of many MB is persisted to a file, an image is a few MB of base64)
# stays far below this; a longer one is a runaway writer or a corrupted file.
MAX_LINE_BYTES = 64 * 1024 * 1024
MESSAGE_TYPES = ("message", "user", "assistant")
# lathe's field on a line of tool results: the calls of it the user denied, each
# `{"tool_use_id": ID, "endsTurn": B}` (endsTurn: the deny that ended the turn, the batch's other
# calls not run). The model read the same texts for a deny and an interrupt: this tells them
# apart on a resume. Readers that do not know it (Claude Code, older lathe) ignore it.
USER_DENIALS = "latheUserDenials"
# How many restarts a garbled line gets: a line written onto a torn one holds a whole record
# after the fragment, which is worth finding; the cap keeps a large garbled line from being slow.
_SALVAGE_TRIES = 32
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass
class ParsedRecords:
    records: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    torn_tail: int = 0  # bytes after the last newline (a line cut short)


def _clean_strings(value: Any) -> Any:
    """Lone surrogates (a `\\udc80` escape) cannot be encoded to send: each becomes U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_clean_strings(v) for v in value]
    if isinstance(value, dict):
        return {_clean_strings(k): _clean_strings(v) for k, v in value.items()}
    return value


def _salvage(text: str) -> Any:
    """The record at the end of a line that starts with a fragment (written onto a torn line)."""
    start = 0
    for _ in range(_SALVAGE_TRIES):
        start = text.find('{"', start + 1)
        if start < 0:
            return None
        try:
            value = jsonlimits.loads(text[start:], "salvage")
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_lines(raw: bytes, where: str) -> ParsedRecords:
    out = ParsedRecords()
    lines = raw.split(b"\n")
    tail = lines.pop()
    if tail:
        out.torn_tail = len(tail)
        out.warnings.append(
            f"{where}: the last line was cut short (a crash?); its {len(tail)} bytes were dropped"
        )
    seen: set[bytes] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        at = f"{where}:{number}"
        if len(line) > MAX_LINE_BYTES:
            out.warnings.append(
                f"{at}: {len(line)} bytes, over the {MAX_LINE_BYTES} limit; skipped"
            )
            continue
        digest = hashlib.blake2b(line, digest_size=16).digest()
        if digest in seen:
            out.warnings.append(f"{at}: a duplicate of an earlier line; skipped")
            continue
        seen.add(digest)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text = line.decode("utf-8", "replace")
            out.warnings.append(f"{at}: invalid UTF-8 replaced with U+FFFD")
        try:
            record = jsonlimits.loads(text, at)
        except jsonlimits.JsonLimitError as exc:
            out.warnings.append(f"{exc} (skipped)")
            continue
        except json.JSONDecodeError:
            record = _salvage(text)
            if record is None:
                out.warnings.append(f"{at}: not valid JSON; skipped")
                continue
            out.warnings.append(
                f"{at}: a cut line was joined with the next one; the cut part was dropped"
            )
        if not isinstance(record, dict):
            out.warnings.append(f"{at}: not a JSON object; skipped")
            continue
        if "\\ud" in text or "\\uD" in text:  # an escaped surrogate, maybe a lone one
            record = _clean_strings(record)
        record["_line"] = number
        out.records.append(record)
    return out


def valid_message(message: Any) -> TypeGuard[dict[str, Any]]:
    return (
        isinstance(message, dict)
        and message.get("role") in ("user", "assistant")
        and isinstance(message.get("content"), str | list)
    )


def _tool_uses(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if message["role"] == "assistant" and isinstance(message["content"], list):
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                yield block


def _in_parent_order(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """Records whose lines name their parent (`parentUuid`) follow it, even when a line was
    written before its parent's; records without a known parent keep their place."""
    index = {r["uuid"]: i for i, r in enumerate(records) if isinstance(r.get("uuid"), str)}
    if not any(index.get(r.get("parentUuid"), -1) > i for i, r in enumerate(records)):
        return records, False
    children: dict[str, list[dict[str, Any]]] = {}
    roots: list[dict[str, Any]] = []
    for record in records:
        parent = record.get("parentUuid")
        if isinstance(parent, str) and parent in index and parent != record.get("uuid"):
            children.setdefault(parent, []).append(record)
        else:
            roots.append(record)
    out: list[dict[str, Any]] = []
    placed: set[int] = set()
    stack = list(reversed(roots))
    while stack:
        record = stack.pop()
        if id(record) in placed:
            continue
        placed.add(id(record))
        out.append(record)
        stack.extend(reversed(children.get(record.get("uuid", ""), [])))
    # A cycle of parents has no root: those records keep their file order at the end.
    out.extend(r for r in records if id(r) not in placed)
    return out, True


@dataclass
class Conversation:
    messages: list[dict[str, Any]]
    meta: dict[str, Any]
    warnings: list[str]
    last_uuid: str | None = None
    earlier: list[dict[str, Any]] = field(default_factory=list)
    # Tool calls the user denied (USER_DENIALS): the id, and whether that deny ended the turn.
    user_denials: dict[str, bool] = field(default_factory=dict)
    # Each tool_result's `toolUseResult` (the tool's data as JSON) by tool_use_id: what a resumed
    # call's view is rebuilt from (Tool.result_from_record).
    tool_results: dict[str, Any] = field(default_factory=dict)


def user_denials_of(record: dict[str, Any]) -> dict[str, bool]:
    """A line's USER_DENIALS as {tool_use_id: ends the turn}; anything malformed is ignored."""
    found = record.get(USER_DENIALS)
    out: dict[str, bool] = {}
    if isinstance(found, list):
        for item in found:
            if isinstance(item, dict) and isinstance(item.get("tool_use_id"), str):
                out[item["tool_use_id"]] = item.get("endsTurn") is True
    return out


def tool_results_of(record: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """A line's `toolUseResult` by tool_use_id: one value for a line with one tool_result, a
    list in the tool_results' order for several (as app/transcript.py writes it); a list that
    does not match the results is ignored."""
    found = record.get("toolUseResult")
    content = message.get("content")
    if found is None or not isinstance(content, list):
        return {}
    ids = [
        b.get("tool_use_id")
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    if len(ids) == 1:
        values = [found]
    elif isinstance(found, list) and len(found) == len(ids):
        values = found
    else:
        return {}
    return {i: v for i, v in zip(ids, values, strict=True) if isinstance(i, str)}


def conversation_of(records: list[dict[str, Any]], where: str) -> Conversation:
    """The messages since the last /clear, without duplicates, in order."""
    records, reordered = _in_parent_order(records)
    warnings: list[str] = []
    if reordered:
        warnings.append(f"{where}: lines out of order were put back after their parents")
    meta: dict[str, Any] = {}
    messages: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []  # before the last compaction, for browsing only
    uuids: set[str] = set()
    tool_ids: set[Any] = set()
    last_uuid: str | None = None
    boundary: tuple[int, list[dict[str, Any]], str] | None = None  # the last compaction's
    denials: dict[str, bool] = {}
    tool_results: dict[str, Any] = {}
    for record in records:
        at = f"{where}:{record.pop('_line', '?')}"
        kind = record.get("type")
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            if uuid in uuids:
                warnings.append(f"{at}: a second line with uuid {uuid}; skipped")
                continue
            uuids.add(uuid)
            last_uuid = uuid
        subtype = record.get("subtype") if kind == "system" else None
        if kind == "session" or subtype == "session_start":
            meta.update(record)
            if "sessionId" in record:
                meta.setdefault("session_id", record["sessionId"])
        elif kind == "clear" or subtype == "clear":
            messages = []  # /clear: the model forgot everything before this line, so must a resume
            earlier = []
            boundary = None
        elif kind == "compact" and isinstance(record.get("messages"), list):
            # lathe's older compaction line: the conversation goes on from the summary it holds.
            earlier.extend(messages)
            messages = [m for m in record["messages"] if valid_message(m)]
            boundary = None
        elif subtype == "compact_boundary":
            # Claude Code's (and lathe's) compaction: the lines after it are the conversation.
            boundary = (len(earlier), list(messages), at)
            earlier.extend(messages)
            messages = []
        elif kind in MESSAGE_TYPES and "message" in record:
            found = record.get("message")
            if not valid_message(found):
                warnings.append(f"{at}: a message without role or content; skipped")
                continue
            message = _without_repeated_tool_uses(found, tool_ids)
            if message is None or (
                message["role"] == "assistant" and messages and messages[-1] == message
            ):
                warnings.append(f"{at}: a repeat of an assistant message already read; skipped")
                continue
            messages.append(message)
            denials.update(user_denials_of(record))
            tool_results.update(tool_results_of(record, message))
    if boundary is not None and not messages:
        # A crash between the boundary and the summary after it: go on from before it, which
        # the next request compacts again, rather than from nothing.
        cut, messages, at = boundary
        earlier = earlier[:cut]
        warnings.append(f"{at}: a compaction with no summary after it; resumed from before it")
    return Conversation(messages, meta, warnings, last_uuid, earlier, denials, tool_results)


def _without_repeated_tool_uses(message: dict[str, Any], seen: set[Any]) -> dict[str, Any] | None:
    """The API refuses a tool_use id used twice: a repeated block is a duplicated line (two
    writers, a retry that was written twice), so the later copy goes; None if nothing is left."""
    blocks = list(_tool_uses(message))
    if not blocks:
        return message
    repeated = [b for b in blocks if b.get("id") in seen]
    seen.update(b.get("id") for b in blocks)
    if not repeated:
        return message
    if len(repeated) == len(blocks):
        return None  # the whole message again
    content = [b for b in message["content"] if not any(b is r for r in repeated)]
    return {**message, "content": content}


def _merge_assistant_runs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive assistant messages are one (Claude Code writes one line per content block;
    the API merges them too), so parallel tool_uses share one user message of results."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if out and message["role"] == "assistant" and out[-1]["role"] == "assistant":
            previous = out[-1]
            out[-1] = {**previous, "content": _as_blocks(previous) + _as_blocks(message)}
        else:
            out.append(message)
    return out


def _as_blocks(message: dict[str, Any]) -> list[Any]:
    content = message["content"]
    return list(content) if isinstance(content, list) else [{"type": "text", "text": content}]


def repair_messages(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """A conversation the API accepts: every tool_use answered by exactly one tool_result in the
    user message right after it, wherever in the file that result was written (two writers
    interleave them); a tool_use left unanswered gets a synthetic error result; results whose
    tool_use is gone are dropped; the conversation opens with the user. Returns the messages and
    how many results were made up or dropped."""
    messages = _merge_assistant_runs(messages)
    owner: dict[Any, int] = {}
    for i, message in enumerate(messages):
        for block in _tool_uses(message):
            owner.setdefault(block.get("id"), i)
    results: dict[Any, dict[str, Any]] = {}
    repaired = 0
    stripped: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "user" and isinstance(message["content"], list):
            kept = []
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    tid = block.get("tool_use_id")
                    if tid in owner and tid not in results:
                        results[tid] = block
                    else:
                        repaired += 1  # an orphan (its tool_use was lost) or a second answer
                    continue
                kept.append(block)
            if not kept:
                continue
            if len(kept) != len(message["content"]):
                message = {**message, "content": kept}
        stripped.append(message)

    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for message in stripped:
        if pending:
            if message["role"] == "user":
                content = message["content"]
                rest = content if isinstance(content, list) else [{"type": "text", "text": content}]
                message = {**message, "content": pending + rest}
            else:
                out.append({"role": "user", "content": pending})
            pending = []
        if not out and message["role"] != "user":
            out.append({"role": "user", "content": [{"type": "text", "text": RESUMED_START}]})
            repaired += 1
        out.append(message)
        for block in _tool_uses(message):
            tid = block.get("id")
            if tid in results:
                pending.append(results[tid])
            else:
                repaired += 1
                pending.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": tid,
                        "content": REPAIRED_RESULT,
                        "is_error": True,
                    }
                )
    if pending:
        out.append({"role": "user", "content": pending})
    return out, repaired
