"""The real anthropic SDK against the HTTP fake over loopback: parsing, rules, faults."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from app.model.scenario import (
    Block,
    Turn,
    parse_turn,
    split_json,
    text_turn,
    tool_use_block,
    turn_of,
)
from tests.fakeapi.server import FakeAPI

USER = [{"role": "user", "content": "hi"}]


def tool_turn(**extra: Any) -> Turn:
    return parse_turn(
        {
            "blocks": [
                {"type": "text", "text": "Reading two files now, in parallel."},
                {
                    "type": "tool_use",
                    "id": "toolu_a",
                    "name": "Read",
                    "input": {"file_path": "a.py"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_b",
                    "name": "Grep",
                    "input": {"pattern": "x y", "-i": True, "nested": {"k": [1, 2]}},
                },
            ],
            "usage": {
                "input_tokens": 120,
                "output_tokens": 33,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 50,
            },
            **extra,
        },
        where="test",
    )


async def test_text_and_tool_use_parsed_by_sdk(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(tool_turn())
    raw_types: list[str] = []
    json_chunks: list[str] = []
    async with sdk_client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=100, messages=USER
    ) as s:
        async for event in s:
            raw_types.append(event.type)
            if event.type == "input_json":
                json_chunks.append(event.partial_json)
        message = await s.get_final_message()
    assert message.stop_reason == "tool_use"
    assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
    assert message.content[0].text == "Reading two files now, in parallel."
    assert message.content[1].id == "toolu_a" and message.content[1].input == {"file_path": "a.py"}
    assert message.content[2].input == {"pattern": "x y", "-i": True, "nested": {"k": [1, 2]}}
    # tool input arrives in several partial_json pieces, as from the real API
    assert len(json_chunks) >= 4
    assert message.usage.cache_read_input_tokens == 1000
    assert message.usage.cache_creation_input_tokens == 50
    assert message.usage.output_tokens == 33
    assert raw_types[0] == "message_start" and raw_types[-1] == "message_stop"
    body = fake_api.bodies()[0]
    assert body["stream"] is True and body["messages"] == USER


async def test_non_streaming_create(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(tool_turn())
    message = await sdk_client.messages.create(model="m", max_tokens=10, messages=USER)
    assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
    assert message.usage.input_tokens == 120


async def test_thinking_block(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(
        parse_turn(
            {
                "blocks": [
                    {"type": "thinking", "thinking": "hmm, let me see"},
                    {"type": "text", "text": "ok"},
                ]
            },
            where="t",
        )
    )
    async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
        message = await s.get_final_message()
    assert message.content[0].type == "thinking"
    assert message.content[0].thinking == "hmm, let me see"
    assert message.content[0].signature


async def test_tool_use_without_result_is_400(fake_api: FakeAPI, sdk_client: Any) -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_x", "name": "Read", "input": {}}],
        },
        {"role": "user", "content": [{"type": "text", "text": "go on"}]},
    ]
    with pytest.raises(anthropic.BadRequestError) as info:
        await sdk_client.messages.create(model="m", max_tokens=10, messages=messages)
    assert info.value.status_code == 400
    assert info.value.body["type"] == "error"
    assert info.value.body["error"]["type"] == "invalid_request_error"
    assert "toolu_x" in info.value.body["error"]["message"]
    assert "tool_result" in info.value.body["error"]["message"]
    assert fake_api.requests[0].status == 400


async def test_rejected_request_does_not_consume_script(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(text_turn("kept"))
    with pytest.raises(anthropic.BadRequestError):
        await sdk_client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "assistant", "content": "x"}]
        )
    assert fake_api.remaining() == 1
    message = await sdk_client.messages.create(model="m", max_tokens=10, messages=USER)
    assert message.content[0].text == "kept"


async def test_missing_key_is_401(fake_api: FakeAPI) -> None:
    fake_api.api_key = "right"
    client = anthropic.AsyncAnthropic(api_key="wrong", base_url=fake_api.url, max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        await client.messages.create(model="m", max_tokens=10, messages=USER)
    await client.close()


@pytest.mark.parametrize(
    ("status", "error_cls"),
    [
        (429, anthropic.RateLimitError),
        (529, anthropic.APIStatusError),
        (500, anthropic.InternalServerError),
    ],
)
async def test_sdk_retries_then_succeeds(
    fake_api: FakeAPI, sdk_client: Any, status: int, error_cls: type[Exception]
) -> None:
    fake_api.enqueue(
        Turn(error=status, retry_after=0.01),
        Turn(error=status, retry_after=0.01),
        text_turn("made it"),
    )
    async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
        message = await s.get_final_message()
    assert message.content[0].text == "made it"
    assert [r.status for r in fake_api.requests] == [status, status, 200]


@pytest.mark.parametrize(
    ("status", "error_cls", "kind"),
    [
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
        (500, anthropic.InternalServerError, "api_error"),
    ],
)
async def test_sdk_gives_up_after_max_retries(
    fake_api: FakeAPI, sdk_client: Any, status: int, error_cls: type[Exception], kind: str
) -> None:
    fake_api.enqueue(*[Turn(error=status, retry_after=0.01)] * 3, text_turn("too late"))
    with pytest.raises(error_cls) as info:
        async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
            await s.get_final_message()
    assert getattr(info.value, "status_code", None) == status
    assert getattr(info.value, "body", {})["error"]["type"] == kind
    assert len(fake_api.requests) == 3  # one try and max_retries=2 retries
    assert fake_api.remaining() == 1


async def test_dropped_stream_raises_after_partial_events(
    fake_api: FakeAPI, sdk_client: Any
) -> None:
    fake_api.enqueue(tool_turn(drop_after=6))
    seen: list[str] = []
    # The SDK does not wrap a mid-stream break: the loop must catch httpx2's TransportError.
    with pytest.raises(httpx2.RemoteProtocolError):
        async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
            async for event in s:
                seen.append(event.type)
    assert "message_start" in seen and "message_stop" not in seen
    assert len(fake_api.requests) == 1  # a broken stream is not retried by the SDK


async def test_error_event_mid_stream(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(tool_turn(error_event_after=4))
    with pytest.raises(anthropic.APIStatusError) as info:
        async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
            async for _ in s:
                pass
    assert "overloaded_error" in str(info.value)


async def test_slow_stream_delivers_everything(fake_api: FakeAPI, sdk_client: Any) -> None:
    fake_api.enqueue(turn_of([Block("text", tuple("abcdefgh"))], delay=0.01))
    deltas: list[str] = []
    async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
        async for event in s:
            if event.type == "text":
                deltas.append(event.text)
    assert deltas == list("abcdefgh")


async def test_client_closing_slow_stream_leaves_server_usable(
    fake_api: FakeAPI, sdk_client: Any
) -> None:
    fake_api.enqueue(turn_of([Block("text", tuple("x" * 200))], delay=0.01), text_turn("next"))
    async with sdk_client.messages.stream(model="m", max_tokens=10, messages=USER) as s:
        async for event in s:
            if event.type == "text":
                break  # an interrupt: leaving the block closes the HTTP stream
    message = await sdk_client.messages.create(model="m", max_tokens=10, messages=USER)
    assert message.content[0].text == "next"


def test_split_json_pieces_rejoin() -> None:
    raw = json.dumps({"a": "é" * 10, "b": [1, 2, 3]})
    assert "".join(split_json(raw)) == raw
    assert len(split_json(raw)) == 3
    assert tool_use_block("X", {"q": 1}).text == '{"q": 1}'


def test_fakeapi_as_subprocess(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(
        json.dumps({"turns": [{"blocks": [{"type": "text", "text": "from the file"}]}]})
    )
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakeapi",
            "--port",
            "0",
            "--script",
            str(script),
            "--requests-log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("fakeapi listening on http://127.0.0.1:"), line
        url = line.split()[-1]
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with client.messages.stream(model="m", max_tokens=5, messages=USER) as s:
            assert s.get_final_text() == "from the file"
        with urllib.request.urlopen(url + "/_fake/requests") as resp:
            recorded = json.loads(resp.read())
        assert recorded[0]["body"]["messages"] == USER
        assert json.loads(log.read_text().splitlines()[0])["status"] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_fakeapi_subprocess_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text("{nope")
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fakeapi", "--script", str(script)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        timeout=30,
    )
    assert proc.returncode == 2
    assert str(script) in proc.stderr and "invalid JSON" in proc.stderr
