"""A user's deny of a foreground subagent's call, as Claude Code 2.1.332 handles it (checked side
by side against the HTTP fake): the subagent is told the call was denied and to try another way
or report the limitation, and goes on; the session's turn goes on with its report. Only a deny of
the session's own call ends the turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.engine.api import Interrupted, answers
from app.execution.texts import SUBAGENT_REJECT_MESSAGE
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session
from tests.support.subagents import requests_of, route

pytestmark = pytest.mark.timeout(60)
MAIN = "start the work"


async def test_a_deny_in_a_subagent_is_the_subagents_to_handle(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = {"description": "make x", "prompt": "SUB-A make x"}
    route(
        fake_api,
        {
            MAIN: [
                turn_of([tool_use_block("Agent", agent, "toolu_agent")]),
                text_turn("The agent could not make x."),
            ],
            "SUB-A": [
                turn_of([tool_use_block("Bash", {"command": "touch sub_x"}, "toolu_sub")]),
                text_turn("I was not allowed to make x."),
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
    assert question.agent  # the dialog names the agent
    assert question.answer(answers.deny(end_turn=True))  # the TUI's plain deny
    ended = await asyncio.wait_for(turn, 15)

    assert ended.subtype == "success" and ended.result_text == "The agent could not make x."
    assert not (project / "sub_x").exists()
    sub = requests_of(fake_api, "SUB-A")
    assert len(sub) == 2  # the subagent was told, and went on
    [result] = [b for b in sub[1]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert result["content"] == SUBAGENT_REJECT_MESSAGE and result["is_error"]
    assert len(requests_of(fake_api, MAIN)) == 2  # the session's turn went on with the report
    assert not events.of(Interrupted)
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert views["toolu_sub"].status == "denied"
    assert views["toolu_sub"].result.summary == "Denied by you"
    assert views["toolu_agent"].status == "done"
    await session.close()
