"""The side-by-side fault fake (bench/cc_faults/fake.py): each fault does what the harness's
verdicts assume, seen over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from bench.cc_faults.fake import SUMMARY_MARK, TOO_LONG, Fault, FaultFake, classify

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
TOOLS = [{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}]


def _body(text: str = "bash:echo hi", **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 100,
        "stream": True,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": text}],
        **extra,
    }


def _events(
    fake: FaultFake, body: dict[str, Any]
) -> tuple[list[tuple[str, str]], Exception | None]:
    """(event name, raw data) pairs as read, and the error that ended the read, if any."""
    out: list[tuple[str, str]] = []
    name = ""
    try:
        with (
            httpx.Client(timeout=2.0) as client,
            client.stream("POST", fake.url + "/v1/messages", json=body, headers=HEADERS) as resp,
        ):
            for line in resp.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    out.append((name, line[6:]))
    except (httpx.HTTPError, httpx.StreamError) as exc:
        return out, exc
    return out, None


@pytest.fixture
def fake_factory():
    fakes: list[FaultFake] = []

    def make(fault: Fault | None = None) -> FaultFake:
        fakes.append(FaultFake(fault).start())
        return fakes[-1]

    yield make
    for f in fakes:
        f.stop()


def test_the_drop_comes_right_after_the_complete_tool_use_block(fake_factory):
    fake = fake_factory(Fault("drop_after_tool_use"))
    events, error = _events(fake, _body())
    assert error is not None, "the stream must break, not end"
    assert events[-1][0] == "content_block_stop"
    assert any(json.loads(d).get("content_block", {}).get("type") == "tool_use" for _, d in events)
    again, error = _events(fake, _body())  # the fault fires once
    assert error is None and again[-1][0] == "message_stop"


def test_bad_data_is_a_data_line_that_is_not_json(fake_factory):
    events, _ = _events(fake_factory(Fault("bad_data")), _body())
    with pytest.raises(json.JSONDecodeError):
        json.loads(events[-1][1])
    assert json.loads(events[0][1])["type"] == "message_start"


def test_hang_sends_nothing(fake_factory):
    fake = fake_factory(Fault("hang"))
    with pytest.raises(httpx.ReadTimeout), httpx.Client(timeout=0.5) as client:
        client.post(fake.url + "/v1/messages", json=_body(), headers=HEADERS)
    assert [s.kind for s in fake.seen()] == ["bash"]


def test_too_long_is_the_apis_400_once(fake_factory):
    fake = fake_factory(Fault("too_long"))
    with httpx.Client() as client:
        first = client.post(fake.url + "/v1/messages", json=_body(stream=False), headers=HEADERS)
        second = client.post(fake.url + "/v1/messages", json=_body(stream=False), headers=HEADERS)
    assert first.status_code == 400 and TOO_LONG in first.text
    assert second.status_code == 200


def test_usage_is_reported_in_message_start_and_message_delta(fake_factory):
    events, _ = _events(fake_factory(Fault("usage", input_tokens=170_000)), _body())
    by_name = {n: json.loads(d) for n, d in events}
    assert by_name["message_start"]["message"]["usage"]["input_tokens"] == 170_000
    assert by_name["message_delta"]["usage"]["input_tokens"] == 170_000


def test_an_invalid_request_gets_the_apis_400_and_is_counted(fake_factory):
    fake = fake_factory()
    dangling = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
            {"role": "user", "content": "no result"},
        ],
    }
    with httpx.Client() as client:
        resp = client.post(fake.url + "/v1/messages", json=dangling, headers=HEADERS)
        head = client.head(fake.url + "/")
        count = client.post(
            fake.url + "/v1/messages/count_tokens", json={"a": "b" * 400}, headers=HEADERS
        )
    assert resp.status_code == 400 and fake.seen()[0].status == 400
    assert head.status_code == 200
    assert count.json()["input_tokens"] > 50


def test_requests_are_told_apart_by_content():
    assert classify(_body()) == "bash"
    assert classify(_body("hello")) == "main"
    assert classify({"messages": [{"role": "user", "content": "title?"}]}) == "side"
    assert classify(_body("x", tool_choice={"type": "none"})) == "summary"
    cc = _body("Your task is to create a detailed summary of the conversation so far.")
    assert classify(cc) == "summary"
    results = _body()
    results["messages"].append(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}],
        }
    )
    results["messages"].append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}
    )
    assert classify(results) == "results"
    assert SUMMARY_MARK
