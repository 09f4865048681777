"""--fork-session copies the conversation into a new transcript with what the old lines kept
beside the tool results: each call's `toolUseResult` and the user's denials (USER_DENIALS).
Without them a resumed fork would show a denied call as failed and a Read as the model's text."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.compose import build_session
from app.engine.api import answers
from app.engine.options import EngineOptions
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.transcript import load_transcript
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, fake_env, make_session

pytestmark = pytest.mark.timeout(60)


async def test_a_fork_keeps_the_recorded_results_and_denials(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "a.txt").write_text("alpha\n")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(project / "a.txt")}, "r1"),
                    tool_use_block("Bash", {"command": "touch nope"}, "b1"),
                ]
            ),
            text_turn("ok"),
            text_turn("forked"),
        ]
    )
    session, events = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("go"))
    while not events.prompts:
        await asyncio.sleep(0.02)
    [question] = events.prompts
    assert question.tool_use_id == "b1" and question.answer(answers.deny("not that"))
    await asyncio.wait_for(turn, 20)
    original = Path(session.status().transcript_path)
    await session.close()
    before = load_transcript(original)
    assert "r1" in before.tool_results and before.user_denials == {"b1": False}

    options = EngineOptions(resume=before.session_id, fork_session=True)
    setup = build_session(
        options,
        interactive=False,
        cwd=project,
        env=fake_env(fake_api),
        sink=Collector(),
        trusted=True,
    )
    fork = setup.session
    fork_path = Path(fork.status().transcript_path)
    await fork.close()
    assert fork_path != original
    after = load_transcript(fork_path)
    assert after.session_id != before.session_id
    assert after.tool_results == before.tool_results
    assert after.user_denials == before.user_denials
