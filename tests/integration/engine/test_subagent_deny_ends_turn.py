"""A user's deny of a foreground subagent's call ends the caller's turn too, as a deny of the
caller's own call does (Claude Code: the interrupt reaches the main turn): the subagent stops, the
main model is not asked again until the user writes, the batch's other calls do not run, and the
end marker names the denied call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.engine.api import Interrupted, answers
from app.execution.texts import INTERRUPTED_FOR_TOOL_USE
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session
from tests.support.subagents import requests_of, route

pytestmark = pytest.mark.timeout(60)
MAIN = "start the work"


async def test_a_deny_in_a_subagent_ends_the_main_turn(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = {"description": "make x", "prompt": "SUB-A make x"}
    route(
        fake_api,
        {
            MAIN: [
                turn_of(
                    [
                        tool_use_block("Agent", agent, "toolu_agent"),
                        tool_use_block("Bash", {"command": "touch main_y"}, "toolu_main"),
                    ]
                ),
                text_turn("MAIN MODEL CALLED AGAIN"),
            ],
            "SUB-A": [
                turn_of([tool_use_block("Bash", {"command": "touch sub_x"}, "toolu_sub")]),
                text_turn("SUB MODEL CALLED AGAIN"),
            ],
        },
    )
    session, events = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn(MAIN))
    question: Any = None
    for _ in range(400):
        question = next((q for q in events.prompts if q.tool_use_id == "toolu_sub"), None)
        if question is not None:
            break
        await asyncio.sleep(0.025)
    assert question is not None, "the subagent's call was not asked"
    assert question.answer(answers.deny(end_turn=True))
    ended = await asyncio.wait_for(turn, 15)

    assert ended.subtype == "interrupted"
    assert len(requests_of(fake_api, "SUB-A")) == 1  # the subagent stopped
    assert len(requests_of(fake_api, MAIN)) == 1  # so did the main turn
    assert not (project / "sub_x").exists() and not (project / "main_y").exists()
    [*_, stop] = events.of(Interrupted)
    assert stop.during_tools and stop.denied == "Bash(touch sub_x)"
    last = session.messages[-1]
    ids = [b["tool_use_id"] for b in last["content"] if b.get("type") == "tool_result"]
    assert ids == ["toolu_agent", "toolu_main"]  # one result each, the marker after them
    assert last["content"][-1] == {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE}
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert views["toolu_sub"].result.summary == "Denied by you"
    assert views["toolu_main"].result.summary == "not run: you denied Bash(touch sub_x)"
    await session.close()
