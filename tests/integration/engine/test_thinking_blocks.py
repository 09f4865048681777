"""Thinking blocks go back to the API exactly as they came (signature and redacted data intact),
in the live conversation and after a resume, against the HTTP fake, which refuses a modified one
as the real API does; the stream's usage reaches the front end while the response streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import StreamUsage, ThinkingDelta
from app.model.scenario import Block, Turn, text_turn, tool_use_block
from app.model.thinking_seal import seal, sign
from app.model.validate import RequestInvalid, validate_request
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "notes.txt").write_text("remember the milk\n")
    return project


def thinking_turn() -> Turn:
    return Turn(
        blocks=(
            Block("thinking", ("The user wants ", "the notes. ", "Read them.")),
            Block("redacted_thinking", ("opaque-payload",)),
            tool_use_block("Read", {"file_path": "notes.txt"}, "r1"),
        ),
        stop_reason="tool_use",
        usage={"input_tokens": 1200, "output_tokens": 45},
    )


def accepted(fake: FakeAPI) -> list[Any]:
    return fake.bodies()


def assistant_blocks(body: Any) -> list[dict[str, Any]]:
    return [b for m in body["messages"] if m["role"] == "assistant" for b in m["content"]]


EXPECTED_THINKING = {
    "type": "thinking",
    "thinking": "The user wants the notes. Read them.",
    "signature": sign("The user wants the notes. Read them."),
}
EXPECTED_REDACTED = {"type": "redacted_thinking", "data": seal("opaque-payload")}


async def test_thinking_goes_back_unmodified_live_and_after_resume(fake_api, repo, monkeypatch):
    fake_api.load([thinking_turn(), text_turn("You need milk.")])
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("what is in my notes?")
    assert result.result_text == "You need milk." and not result.is_error
    assert [r.status for r in fake_api.requests] == [200, 200]
    # The follow-up request carries both blocks byte for byte, before the tool_use.
    sent = assistant_blocks(accepted(fake_api)[1])
    assert sent[0] == EXPECTED_THINKING and sent[1] == EXPECTED_REDACTED
    assert sent[2]["type"] == "tool_use"
    # The front end saw the thinking as it streamed, and the stream's usage.
    assert "".join(e.text for e in events.of(ThinkingDelta)) == EXPECTED_THINKING["thinking"]
    # message_start's input and first output token, then message_delta's output.
    assert events.of(StreamUsage)[:2] == [StreamUsage(1200, 1), StreamUsage(1200, 45)]
    await session.close()

    # Resumed from its transcript, the conversation sends them back unchanged too.
    fake_api.load([text_turn("Still milk.")])
    resumed, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    again = await resumed.run_turn("and now?")
    assert again.result_text == "Still milk." and not again.is_error
    assert fake_api.requests[-1].status == 200
    sent = assistant_blocks(accepted(fake_api)[-1])
    assert sent[0] == EXPECTED_THINKING and sent[1] == EXPECTED_REDACTED
    await resumed.close()


def _request(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [*blocks, {"type": "text", "text": "ok"}]},
            {"role": "user", "content": "go on"},
        ],
    }


def test_the_fake_refuses_modified_thinking_as_the_api_does() -> None:
    validate_request(_request(EXPECTED_THINKING, EXPECTED_REDACTED))  # intact: accepted
    edited = {**EXPECTED_THINKING, "thinking": "The user wants the notes."}
    with pytest.raises(RequestInvalid, match="Invalid `signature` in `thinking` block"):
        validate_request(_request(edited))
    unsigned = {"type": "thinking", "thinking": "x"}
    with pytest.raises(RequestInvalid, match="signature: Field required"):
        validate_request(_request(unsigned))
    tampered = {"type": "redacted_thinking", "data": seal("opaque-payload") + "x"}
    with pytest.raises(RequestInvalid, match="Invalid `data` in `redacted_thinking` block"):
        validate_request(_request(tampered))
