"""The scenario's stream faults (stall_after, malformed_after, never_answer) in the offline model,
as the SDK meets them: a read timeout, a bare JSONDecodeError, a request timeout."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import httpx2
import pytest

from app.engine.stream_guard import request_timeout
from app.model.scenario import ScenarioError, parse_scenario
from app.model.scripted import ScenarioSource, make_scripted_client

USER = [{"role": "user", "content": "hi"}]
TEXT = {"type": "text", "chunks": ["a", "b", "c"]}


def client_for(*turns: dict[str, Any]) -> Any:
    return make_scripted_client(ScenarioSource(parse_scenario(list(turns))), max_retries=0)


async def events(client: Any, timeout: float | None = 0.2) -> list[str]:
    kwargs: dict[str, Any] = {} if timeout is None else {"timeout": request_timeout(timeout)}
    raw = await client.messages.create(
        model="m", max_tokens=5, messages=USER, stream=True, **kwargs
    )
    return [event.type async for event in raw]


async def test_stall_after_times_out_like_a_network_read() -> None:
    client = client_for({"blocks": [TEXT], "stall_after": 3})
    started = time.monotonic()
    with pytest.raises(httpx2.ReadTimeout):
        await events(client)
    assert 0.15 <= time.monotonic() - started < 5


async def test_never_answer_is_a_request_timeout() -> None:
    client = client_for({"never_answer": True})
    with pytest.raises(anthropic.APITimeoutError):
        await events(client)


async def test_malformed_after_is_a_data_line_that_is_not_json() -> None:
    client = client_for({"blocks": [TEXT], "malformed_after": 2})
    with pytest.raises(json.JSONDecodeError):
        await events(client)


async def test_faults_after_the_last_event_do_nothing() -> None:
    client = client_for(
        {"blocks": [TEXT], "stall_after": 99}, {"blocks": [TEXT], "malformed_after": 99}
    )
    assert (await events(client))[-1] == "message_stop"
    assert (await events(client))[-1] == "message_stop"


@pytest.mark.parametrize(
    ("turn", "problem"),
    [
        ({"never_answer": False}, "never_answer must be true"),
        ({"blocks": [TEXT], "stall_after": -1}, "stall_after must be a non-negative integer"),
        ({"blocks": [TEXT], "malformed_after": 1.5}, "malformed_after must be a non-negative"),
    ],
)
def test_bad_fault_keys_are_refused(turn: dict[str, Any], problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        parse_scenario([turn])
