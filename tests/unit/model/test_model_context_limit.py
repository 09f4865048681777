"""The fakes enforce a context limit with the real API's error and report usage that follows the
request's size; scenario files carry `context_limit` and `auto_summary`."""

from __future__ import annotations

import anthropic
import pytest

from app.model.context_limit import parse_too_long, request_tokens
from app.model.scenario import ScenarioError, parse_scenario, text_turn
from app.model.scripted import ScenarioSource, make_scripted_client


def _body(chars: int) -> dict:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": "x" * chars}],
    }


async def test_http_fake_refuses_a_prompt_over_the_limit(fake_api, sdk_client) -> None:
    fake_api.context_limit = 5_000
    fake_api.load([text_turn("small is fine")])
    with pytest.raises(anthropic.BadRequestError) as caught:
        await sdk_client.messages.create(**_body(40_000))
    error = caught.value.body["error"]
    assert error["type"] == "invalid_request_error"
    tokens, maximum = parse_too_long(error["message"]) or (0, 0)
    assert maximum == 5_000 and tokens == request_tokens(_body(40_000)) > 5_000
    assert fake_api.remaining() == 1  # a refused request consumes no turn
    with pytest.raises(anthropic.BadRequestError) as caught:
        await sdk_client.messages.create(**{**_body(15_000), "max_tokens": 2_000})
    assert (
        "input length and `max_tokens` exceed context limit"
        in caught.value.body["error"]["message"]
    )
    reply = await sdk_client.messages.create(**_body(400))
    assert reply.content[0].text == "small is fine"
    assert reply.usage.input_tokens == request_tokens(_body(400))


async def test_usage_follows_the_request_size(fake_api, sdk_client) -> None:
    small = await sdk_client.messages.create(**_body(100))
    big = await sdk_client.messages.create(**_body(80_000))
    assert big.usage.input_tokens - small.usage.input_tokens == pytest.approx(20_000, rel=0.01)


async def test_auto_summary_answers_compaction_requests_only(fake_api, sdk_client) -> None:
    fake_api.auto_summary = True
    fake_api.load([text_turn("a normal turn")])
    tools = [{"name": "Read", "description": "r", "input_schema": {"type": "object"}}]
    summary = await sdk_client.messages.create(
        **_body(100), tools=tools, tool_choice={"type": "none"}
    )
    assert summary.content[0].text.startswith("<summary>")
    normal = await sdk_client.messages.create(**_body(100))
    assert normal.content[0].text == "a normal turn"


async def test_offline_model_enforces_the_scenario_limit() -> None:
    scenario = parse_scenario(
        {"turns": [{"blocks": [{"type": "text", "text": "ok"}]}], "context_limit": 2000}
    )
    client = make_scripted_client(ScenarioSource(scenario), max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        await client.messages.create(**_body(20_000))
    assert "prompt is too long" in caught.value.body["error"]["message"]
    reply = await client.messages.create(**_body(100))
    assert reply.content[0].text == "ok"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"turns": [], "context_limit": -1}, "context_limit must be a non-negative integer"),
        ({"turns": [], "context_limit": 0}, "context_limit must be at least 1"),
        ({"turns": [], "auto_summary": "yes"}, "auto_summary must be true or false"),
    ],
)
def test_scenario_keys_are_checked(data: dict, problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        parse_scenario(data, source="s.json")


def test_scenario_keys_are_read() -> None:
    scenario = parse_scenario({"turns": [], "context_limit": 200000, "auto_summary": True})
    assert scenario.context_limit == 200_000 and scenario.auto_summary


async def test_the_demo_model_answers_a_compaction_with_a_summary(tmp_path) -> None:
    from app.model.demo import make_demo_client

    client = make_demo_client(tmp_path, max_retries=0)
    tools = [{"name": "Read", "description": "r", "input_schema": {"type": "object"}}]
    reply = await client.messages.create(**_body(100), tools=tools, tool_choice={"type": "none"})
    assert reply.content[0].text.startswith("<summary>")
