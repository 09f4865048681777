"""The fake's opt-in leniencies for other clients (tests/fakeapi/compat.py), through the real SDK."""

from __future__ import annotations

import anthropic
import pytest

from app.model.scenario import text_turn
from tests.fakeapi.compat import fold_system_messages
from tests.fakeapi.server import FakeAPI

WITH_SYSTEM = [
    {"role": "user", "content": "context"},
    {"role": "system", "content": "reminder"},
    {"role": "user", "content": [{"type": "text", "text": "the question"}]},
]


def test_fold_drops_system_messages_and_joins_the_neighbours() -> None:
    folded = fold_system_messages({"model": "m", "messages": WITH_SYSTEM})
    assert folded["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "context"},
                {"type": "text", "text": "the question"},
            ],
        }
    ]
    assert WITH_SYSTEM[0]["content"] == "context"  # the request itself is left as it was


async def test_system_messages_are_refused_unless_accepted() -> None:
    for accept, status in ((False, 400), (True, 200)):
        with FakeAPI([text_turn("ok")], accept_system_messages=accept) as fake:
            client = anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, max_retries=0)
            try:
                await client.messages.create(
                    model="m",
                    max_tokens=5,
                    messages=WITH_SYSTEM,  # type: ignore[arg-type]
                )
                got = 200
            except anthropic.BadRequestError as exc:
                got = exc.status_code
            assert got == status
            assert fake.requests[0].received > 0


@pytest.mark.parametrize("script_model", [None, "main"])
async def test_side_requests_do_not_use_up_the_script(script_model: str | None) -> None:
    with FakeAPI([text_turn("scripted")], script_model=script_model) as fake:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, max_retries=0)
        side = await client.messages.create(
            model="small", max_tokens=5, messages=[{"role": "user", "content": "title?"}]
        )
        main = await client.messages.create(
            model="main", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )
    texts = [side.content[0].text, main.content[0].text]  # type: ignore[union-attr]
    if script_model is None:
        assert texts[0] == "scripted" and texts[1] != "scripted"
    else:
        assert texts[0] != "scripted" and texts[1] == "scripted"
