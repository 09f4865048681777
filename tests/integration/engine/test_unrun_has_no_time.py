"""A call stopped at its approval question (the turn interrupted while the dialog is open)
never ran: its view has no elapsed time, as a denied one has none; a call that ran has one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session

pytestmark = pytest.mark.timeout(60)


async def test_interrupted_at_its_question_shows_no_time(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "echo ran"}, "e0")]),
            turn_of(
                [
                    tool_use_block("Bash", {"command": "touch a"}, "t1"),
                    tool_use_block("Bash", {"command": "sleep 2"}, "s2"),
                ]
            ),
            text_turn("never"),
        ]
    )
    session, events = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("go"))
    for _ in range(400):  # e0 (read-only) runs without asking; t1 asks
        if events.prompts:
            break
        await asyncio.sleep(0.025)
    [question] = events.prompts
    assert question.tool_use_id == "t1"
    await asyncio.sleep(0.15)  # the dialog stays open a while: that wait is no run time
    assert session.interrupt()
    await asyncio.wait_for(turn, 10)
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert views["e0"].status == "done" and views["e0"].elapsed is not None
    assert views["t1"].status == "interrupted" and views["t1"].elapsed is None
    assert views["s2"].status == "interrupted" and views["s2"].elapsed is None
    assert not (project / "a").exists()
    await session.close()
