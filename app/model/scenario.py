"""Scripted assistant turns and the scenario file format (see SCENARIOS.md beside this file).

A scenario is what the offline model (scripted.py) and the HTTP fake of the API (tests/fakeapi)
replay: a queue of entries, one consumed per request. An entry is either an assistant turn (blocks,
stop reason, usage, pacing, an optional mid-stream fault) or an HTTP error answered instead of a turn.

File shape (JSON; a `.toml` file holds the same keys, `[[turns]]` tables)::

    {"turns": [
        {"blocks": [{"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "name": "Read", "input": {"file_path": "README.md"}}]},
        {"blocks": [{"type": "text", "text": "Done."}], "delay": 0.01},
        {"error": 529}
     ],
     "final_text": "(scenario finished)"}

A bare JSON list is read as the `turns` list.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app import jsonlimits

DEFAULT_FINAL_TEXT = "(The scripted scenario has no more turns.)"

STOP_REASONS = frozenset(
    {"end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"}
)
USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


class ScenarioError(ValueError):
    """A scenario that cannot be used. The message names the file (when there is one) and the spot."""


@dataclass(frozen=True)
class Block:
    """One content block of a scripted assistant turn.

    `chunks` is how the text (or thinking, or tool input JSON) is cut into deltas.
    """

    type: Literal["text", "tool_use", "thinking", "redacted_thinking"]
    chunks: tuple[str, ...]
    name: str = ""
    id: str = ""
    input: Mapping[str, Any] | None = None

    @property
    def text(self) -> str:
        return "".join(self.chunks)


@dataclass(frozen=True)
class Turn:
    """One scripted answer: either a streamed assistant message or an HTTP error (`error` set)."""

    blocks: tuple[Block, ...] = ()
    stop_reason: str = "end_turn"
    usage: Mapping[str, int] = field(default_factory=dict)
    delay: float = 0.0
    drop_after: int | None = None
    error_event_after: int | None = None
    error: int | None = None
    retry_after: float | None = None
    error_message: str = ""
    # Stream faults beyond a drop (SCENARIOS.md): go silent after N events with the connection
    # open, send a `data:` line that is not JSON after N events, or never send a response at all.
    stall_after: int | None = None
    malformed_after: int | None = None
    never_answer: bool = False


@dataclass(frozen=True)
class Scenario:
    turns: tuple[Turn, ...]
    final_text: str = DEFAULT_FINAL_TEXT
    source: str = "<scenario>"
    # The model's window in tokens: a longer request gets the API's "prompt is too long" 400.
    context_limit: int | None = None
    # Compaction requests (tool_choice none) get a generated summary instead of the next turn.
    auto_summary: bool = False


def split_chunks(text: str, size: int) -> tuple[str, ...]:
    """Cut text into deltas of `size` characters, as a real stream arrives in small pieces."""
    if not text:
        return ("",)
    return tuple(text[i : i + size] for i in range(0, len(text), size))


def split_json(raw: str, pieces: int = 3) -> tuple[str, ...]:
    """Cut tool input JSON into several partial_json chunks (the API never sends it whole)."""
    if len(raw) < pieces:
        return (raw,)
    step = -(-len(raw) // pieces)
    return tuple(raw[i : i + step] for i in range(0, len(raw), step))


def text_turn(text: str, *, delay: float = 0.0) -> Turn:
    return Turn(
        blocks=(Block("text", split_chunks(text, 24)),), stop_reason="end_turn", delay=delay
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; every problem is a ScenarioError naming the file."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: scenario file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{p}: cannot read scenario file: {exc}") from None
    data: Any
    if p.suffix.lower() == ".toml":
        try:
            data = jsonlimits.toml_loads(raw, str(p))
        except jsonlimits.JsonLimitError as exc:
            raise ScenarioError(str(exc)) from None
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(f"{p}: invalid TOML: {exc}") from None
    else:
        try:
            data = jsonlimits.loads(raw, str(p))
        except jsonlimits.JsonLimitError as exc:
            raise ScenarioError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise ScenarioError(
                f"{p}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
    return parse_scenario(data, source=str(p))


def parse_scenario(data: Any, *, source: str = "<scenario>") -> Scenario:
    if isinstance(data, list):
        data = {"turns": data}
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected an object with a 'turns' list or a list of turns")
    unknown = set(data) - {"turns", "final_text", "context_limit", "auto_summary"}
    if unknown:
        raise ScenarioError(f"{source}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    turns = data.get("turns")
    if not isinstance(turns, list):
        raise ScenarioError(f"{source}: 'turns' must be a list")
    final_text = data.get("final_text", DEFAULT_FINAL_TEXT)
    if not isinstance(final_text, str):
        raise ScenarioError(f"{source}: 'final_text' must be a string")
    parsed = tuple(parse_turn(t, where=f"{source}: turns[{i}]") for i, t in enumerate(turns))
    limit = data.get("context_limit")
    if limit is not None:
        limit = int(_number(limit, f"{source}: context_limit", integer=True))
        if limit < 1:
            raise ScenarioError(f"{source}: context_limit must be at least 1")
    auto_summary = data.get("auto_summary", False)
    if not isinstance(auto_summary, bool):
        raise ScenarioError(f"{source}: auto_summary must be true or false")
    return Scenario(
        turns=parsed,
        final_text=final_text,
        source=source,
        context_limit=limit,
        auto_summary=auto_summary,
    )


_TURN_KEYS = frozenset(
    {
        "blocks",
        "stop_reason",
        "usage",
        "delay",
        "drop_after",
        "error_event_after",
        "error",
        "retry_after",
        "message",
        "stall_after",
        "malformed_after",
        "never_answer",
    }
)


def _number(value: Any, where: str, *, integer: bool = False) -> float:
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or isinstance(value, bool) or value < 0:
        kind = "a non-negative integer" if integer else "a non-negative number"
        raise ScenarioError(f"{where} must be {kind}, got {value!r}")
    return float(value)


def parse_turn(data: Any, *, where: str) -> Turn:
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: a turn must be an object, got {type(data).__name__}")
    unknown = set(data) - _TURN_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s): {', '.join(sorted(unknown))}")
    retry_after = (
        _number(data["retry_after"], f"{where}.retry_after") if "retry_after" in data else None
    )
    if "error" in data:
        status = data["error"]
        if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
            raise ScenarioError(f"{where}.error must be an HTTP status 400-599, got {status!r}")
        message = data.get("message", "")
        if not isinstance(message, str):
            raise ScenarioError(f"{where}.message must be a string")
        return Turn(error=status, retry_after=retry_after, error_message=message)
    if "never_answer" in data:
        if data["never_answer"] is not True:
            raise ScenarioError(f"{where}.never_answer must be true")
        return Turn(never_answer=True)
    blocks_data = data.get("blocks")
    if not isinstance(blocks_data, list) or not blocks_data:
        raise ScenarioError(f"{where}.blocks must be a non-empty list of blocks")
    blocks = tuple(
        parse_block(b, where=f"{where}.blocks[{j}]", index=j) for j, b in enumerate(blocks_data)
    )
    has_tool = any(b.type == "tool_use" for b in blocks)
    stop_reason = data.get("stop_reason", "tool_use" if has_tool else "end_turn")
    if stop_reason not in STOP_REASONS:
        raise ScenarioError(
            f"{where}.stop_reason must be one of {', '.join(sorted(STOP_REASONS))}, "
            f"got {stop_reason!r}"
        )
    usage_data = data.get("usage", {})
    if not isinstance(usage_data, dict):
        raise ScenarioError(f"{where}.usage must be an object")
    usage: dict[str, int] = {}
    for key, value in usage_data.items():
        if key not in USAGE_KEYS:
            raise ScenarioError(f"{where}.usage: unknown key {key!r}")
        usage[key] = int(_number(value, f"{where}.usage.{key}", integer=True))
    delay = _number(data.get("delay", 0), f"{where}.delay")
    drop = data.get("drop_after")
    err_after = data.get("error_event_after")
    stall = data.get("stall_after")
    malformed = data.get("malformed_after")
    return Turn(
        blocks=blocks,
        stop_reason=stop_reason,
        usage=usage,
        delay=delay,
        drop_after=None
        if drop is None
        else int(_number(drop, f"{where}.drop_after", integer=True)),
        error_event_after=None
        if err_after is None
        else int(_number(err_after, f"{where}.error_event_after", integer=True)),
        retry_after=retry_after,
        stall_after=None
        if stall is None
        else int(_number(stall, f"{where}.stall_after", integer=True)),
        malformed_after=None
        if malformed is None
        else int(_number(malformed, f"{where}.malformed_after", integer=True)),
    )


def _chunks(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """A block's text comes whole (`key`, split here) or pre-cut (`chunks`)."""
    if "chunks" in data:
        chunks = data["chunks"]
        if (
            not isinstance(chunks, list)
            or not all(isinstance(c, str) for c in chunks)
            or not chunks
        ):
            raise ScenarioError(f"{where}.chunks must be a non-empty list of strings")
        return tuple(chunks)
    value = data.get(key)
    if not isinstance(value, str):
        raise ScenarioError(f"{where}.{key} must be a string")
    return split_chunks(value, 24)


def parse_block(data: Any, *, where: str, index: int) -> Block:
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: a block must be an object")
    kind = data.get("type")
    if kind == "text":
        return Block("text", _chunks(data, "text", where))
    if kind == "thinking":
        return Block("thinking", _chunks(data, "thinking", where))
    if kind == "redacted_thinking":
        # Sent whole in content_block_start (no deltas), as the API sends encrypted thinking.
        payload = data.get("data", "")
        if not isinstance(payload, str) or not payload:
            raise ScenarioError(f"{where}.data must be a non-empty string")
        return Block("redacted_thinking", (payload,))
    if kind != "tool_use":
        raise ScenarioError(
            f"{where}.type must be 'text', 'tool_use', 'thinking' or 'redacted_thinking', "
            f"got {kind!r}"
        )
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{where}.name must be a non-empty string")
    block_id = data.get("id", "")
    if not isinstance(block_id, str):
        raise ScenarioError(f"{where}.id must be a string")
    if "raw_input" in data:
        # Deliberately broken JSON, to test how the loop handles invalid streamed tool input.
        raw = data["raw_input"]
        if not isinstance(raw, str):
            raise ScenarioError(f"{where}.raw_input must be a string")
        return Block("tool_use", split_json(raw), name=name, id=block_id, input=None)
    tool_input = data.get("input", {})
    if not isinstance(tool_input, dict):
        raise ScenarioError(f"{where}.input must be an object")
    raw = json.dumps(tool_input, ensure_ascii=False)
    return Block("tool_use", split_json(raw), name=name, id=block_id, input=tool_input)


def tool_use_block(name: str, tool_input: Mapping[str, Any], block_id: str = "") -> Block:
    raw = json.dumps(dict(tool_input), ensure_ascii=False)
    return Block("tool_use", split_json(raw), name=name, id=block_id, input=tool_input)


def text_block(text: str, size: int = 24) -> Block:
    return Block("text", split_chunks(text, size))


def turn_of(blocks: Sequence[Block], *, delay: float = 0.0, stop_reason: str | None = None) -> Turn:
    has_tool = any(b.type == "tool_use" for b in blocks)
    return Turn(
        blocks=tuple(blocks),
        stop_reason=stop_reason or ("tool_use" if has_tool else "end_turn"),
        delay=delay,
    )
