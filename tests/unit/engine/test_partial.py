"""Which blocks of a broken response are kept (app/engine/partial.py), fed real SDK event objects."""

from __future__ import annotations

from typing import Any

from anthropic.types import RawMessageStreamEvent
from pydantic import TypeAdapter

from app.engine.partial import kept_message
from app.engine.stream import StreamAccumulator

EVENT = TypeAdapter(RawMessageStreamEvent)


def fed(*events: dict[str, Any]) -> StreamAccumulator:
    acc = StreamAccumulator()
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
    }
    for event in (start, *events):
        acc.feed(EVENT.validate_python(event))
    return acc


def block(index: int, content_block: dict[str, Any], *deltas: dict[str, Any]) -> list[dict]:
    return [
        {"type": "content_block_start", "index": index, "content_block": content_block},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


TEXT = {"type": "text", "text": ""}


def tool(index: int, tool_id: str) -> list[dict]:
    return block(
        index,
        {"type": "tool_use", "id": tool_id, "name": "Read", "input": {}},
        {"type": "input_json_delta", "partial_json": '{"file_path": "a"}'},
    )


def test_nothing_kept_without_a_complete_tool_use() -> None:
    acc = fed(*block(0, TEXT, {"type": "text_delta", "text": "hello"}))
    assert kept_message(acc, set()) is None
    started = fed(
        {"type": "content_block_start", "index": 0, "content_block": TEXT},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "he"}},
    )
    assert kept_message(started, set()) is None


def test_complete_blocks_stay_and_a_cut_text_block_goes() -> None:
    acc = fed(
        *block(0, TEXT, {"type": "text_delta", "text": "Reading."}),
        *tool(1, "t1"),
        {"type": "content_block_start", "index": 2, "content_block": TEXT},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "An"}},
    )
    kept = kept_message(acc, {"t1"})
    assert kept is not None
    assert kept["content"] == [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}},
    ]
    assert kept["stop_reason"] is None and kept["id"] == "msg_1"


def test_a_cut_tool_use_goes() -> None:
    acc = fed(
        *tool(0, "t1"),
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t2", "name": "Read", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"file_'},
        },
    )
    kept = kept_message(acc, {"t1"})
    assert kept is not None and [b["id"] for b in kept["content"]] == ["t1"]


def test_only_tools_the_executor_holds_stay() -> None:
    acc = fed(*tool(0, "t1"), *tool(1, "t2"))
    kept = kept_message(acc, {"t2"})
    assert kept is not None and [b["id"] for b in kept["content"]] == ["t2"]
    assert kept_message(acc, set()) is None


def test_a_server_tool_call_without_its_result_goes() -> None:
    search = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}
    acc = fed(*block(0, search), *block(1, {**search, "id": "s2"}), *tool(2, "t1"))
    acc.blocks[3] = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}
    acc.done.add(3)
    kept = kept_message(acc, {"t1"})
    assert kept is not None
    assert [b.get("id") or b["type"] for b in kept["content"]] == [
        "s1",
        "t1",
        "web_search_tool_result",
    ]
