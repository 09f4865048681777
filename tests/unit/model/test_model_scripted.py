"""The offline model through the real SDK (httpx transport), and scenario file errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from app.model.scenario import ScenarioError, load_scenario, parse_scenario
from app.model.scripted import (
    ScenarioSource,
    ScriptedTransport,
    client_for_scenario_file,
    make_scripted_client,
)

USER = [{"role": "user", "content": "hi"}]

SCENARIO = {
    "turns": [
        {
            "blocks": [
                {"type": "text", "text": "Looking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Read",
                    "input": {"file_path": "README.md"},
                },
                {"type": "tool_use", "name": "Glob", "input": {"pattern": "**/*.py"}},
            ],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 7},
        },
        {"blocks": [{"type": "text", "chunks": ["Do", "ne", "."]}], "delay": 0.001},
    ],
    "final_text": "nothing more",
}


async def stream(client: Any, messages: list[dict[str, Any]]) -> Any:
    async with client.messages.stream(model="demo", max_tokens=50, messages=messages) as s:
        return await s.get_final_message()


def answered(message: Any) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}
    ]


async def test_turns_in_order_then_final_text(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    transport = ScriptedTransport(ScenarioSource(load_scenario(path)))
    client = make_scripted_client(transport)
    first = await stream(client, USER)
    assert first.stop_reason == "tool_use"
    assert first.content[1].id == "toolu_1"
    assert first.content[2].id.startswith("toolu_") and first.content[2].input == {
        "pattern": "**/*.py"
    }
    assert first.usage.cache_read_input_tokens == 7
    results = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": "ok"} for b in first.content[1:]
        ],
    }
    convo = [*USER, *answered(first), results]
    second = await stream(client, convo)
    assert second.content[0].text == "Done." and second.stop_reason == "end_turn"
    convo += [*answered(second), {"role": "user", "content": "more?"}]
    third = await stream(client, convo)
    assert third.content[0].text == "nothing more"
    assert len(transport.requests) == 3
    assert transport.requests[1]["messages"][2]["content"][0]["tool_use_id"] == "toolu_1"


async def test_toml_scenario(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        '[[turns]]\nstop_reason = "max_tokens"\n[[turns.blocks]]\ntype = "text"\ntext = "cut off"\n'
    )
    message = await stream(client_for_scenario_file(path), USER)
    assert message.stop_reason == "max_tokens" and message.content[0].text == "cut off"


async def test_scripted_enforces_api_rules() -> None:
    client = make_scripted_client(ScenarioSource(parse_scenario(SCENARIO)), max_retries=0)
    first = await stream(client, USER)
    bad = [*USER, *answered(first), {"role": "user", "content": "no results"}]
    with pytest.raises(anthropic.BadRequestError) as info:
        await stream(client, bad)
    assert "tool_result" in info.value.body["error"]["message"]


async def test_scripted_faults_retry_and_drop() -> None:
    scenario = parse_scenario(
        [
            {"error": 429, "retry_after": 0.001},
            {"error": 529, "retry_after": 0.001},
            {"blocks": [{"type": "text", "text": "after retries"}]},
            {"blocks": [{"type": "text", "text": "x" * 100}], "drop_after": 4},
            {"blocks": [{"type": "text", "text": "y" * 100}], "error_event_after": 3},
        ]
    )
    transport = ScriptedTransport(ScenarioSource(scenario))
    client = make_scripted_client(transport, max_retries=2)
    assert (await stream(client, USER)).content[0].text == "after retries"
    with pytest.raises(httpx2.RemoteProtocolError):
        await stream(client, USER)
    with pytest.raises(anthropic.APIStatusError, match="overloaded"):
        await stream(client, USER)


async def test_scripted_raw_event_sequence() -> None:
    client = make_scripted_client(ScenarioSource(parse_scenario(SCENARIO)))
    raw = await client.messages.create(model="m", max_tokens=5, messages=USER, stream=True)
    types = [event.type async for event in raw]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    assert types.count("content_block_start") == 3 == types.count("content_block_stop")


async def test_invalid_tool_json_reaches_the_sdk() -> None:
    scenario = parse_scenario(
        [{"blocks": [{"type": "tool_use", "name": "Bash", "raw_input": '{"command": "ls'}]}]
    )
    client = make_scripted_client(ScenarioSource(scenario))
    raw = await client.messages.create(model="m", max_tokens=5, messages=USER, stream=True)
    partial = "".join([e.delta.partial_json async for e in raw if e.type == "content_block_delta"])
    assert partial == '{"command": "ls'


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "invalid JSON at line 1"),
        ('{"turns": 3}', "'turns' must be a list"),
        ('{"turns": [], "extra": 1}', "unknown top-level key(s): extra"),
        ('[{"blocks": []}]', "turns[0].blocks must be a non-empty list"),
        ('[{"blocks": [{"type": "image"}]}]', "turns[0].blocks[0].type must be"),
        ('[{"blocks": [{"type": "tool_use", "input": {}}]}]', "turns[0].blocks[0].name"),
        (
            '[{"blocks": [{"type": "tool_use", "name": "R", "input": [1]}]}]',
            "input must be an object",
        ),
        ('[{"blocks": [{"type": "text", "text": 5}]}]', "blocks[0].text must be a string"),
        (
            '[{"blocks": [{"type": "text", "text": "a"}], "stop_reason": "done"}]',
            "stop_reason must be",
        ),
        (
            '[{"blocks": [{"type": "text", "text": "a"}], "delay": -1}]',
            "delay must be a non-negative",
        ),
        (
            '[{"blocks": [{"type": "text", "text": "a"}], "usage": {"tokens": 1}}]',
            "unknown key 'tokens'",
        ),
        ('[{"error": 200}]', "error must be an HTTP status"),
        ('[{"blocks": [{"type": "text", "text": "a"}], "colour": 1}]', "unknown key(s): colour"),
        ('"just a string"', "expected an object"),
    ],
)
def test_malformed_scenarios_name_file_and_problem(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(path) in str(info.value)
    assert problem in str(info.value)


def test_missing_and_bad_toml_scenario(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "nope.json")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[turns]\n")
    with pytest.raises(ScenarioError, match="invalid TOML"):
        load_scenario(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(binary)
