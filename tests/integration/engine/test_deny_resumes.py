"""A deny resumes as it was shown live: `-c`/`-r` of a session where the user denied a call of a
batch shows "Denied by you" for it, "not run: you denied Bash(...)" for the rest and the
"Denied" end marker (the transcript's `latheUserDenials` field tells the deny from the interrupt
the model read); a transcript without that field (older lathe, Claude Code) still loads and
replays as the interrupt."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.engine.api import Interrupted, ToolCallUpdated, answers
from app.engine.replay import replay_events
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.transcript import find_latest, load_transcript
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, make_session

pytestmark = pytest.mark.timeout(60)


def _batch(repo: Path) -> list[Any]:
    return [
        turn_of(
            [
                tool_use_block("Read", {"file_path": str(repo / "z.txt")}, "r0"),
                tool_use_block("Bash", {"command": "touch x", "description": "Make x"}, "b1"),
                tool_use_block("Bash", {"command": "touch y"}, "b2"),
            ]
        ),
        text_turn("never"),
    ]


def _same_as_live(resumed: dict[str, tuple[str, str]], live: dict[str, tuple[str, str]]) -> None:
    """The denied batch reads as it did live, the Read that ran included: its declared summary
    ("Read 1 line") is rebuilt from the transcript's toolUseResult (Tool.result_from_record)."""
    assert resumed == live
    assert live["r0"] == ("done", "Read 1 line")


async def _question(events: Collector) -> Any:
    for _ in range(400):
        if events.prompts:
            return events.prompts[0]
        await asyncio.sleep(0.025)
    pytest.fail("no permission question was asked")


def _shown(events: Any) -> dict[str, tuple[str, str]]:
    return {
        e.view.tool_use_id: (e.view.status, e.view.result.summary if e.view.result else "")
        for e in events
        if isinstance(e, ToolCallUpdated) and e.change == "finished"
    }


async def _denied_session(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch, feedback: str = ""
) -> tuple[dict[str, tuple[str, str]], list[Interrupted]]:
    (repo / "z.txt").write_text("zed\n")
    fake_api.load(_batch(repo))
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("make the files"))
    assert (await _question(events)).answer(answers.deny(feedback, end_turn=True))
    if feedback:  # the turn goes on: the second Bash asks too
        for _ in range(400):
            if len(events.prompts) > 1:
                break
            await asyncio.sleep(0.025)
        assert events.prompts[1].answer(answers.deny(end_turn=True))
    await asyncio.wait_for(turn, 10)
    await session.close()
    return _shown(events.events), events.of(Interrupted)


def _resumed(repo: Path, monkeypatch: pytest.MonkeyPatch, fake_api: FakeAPI) -> list[Any]:
    session, _ = make_session(
        fake_api, repo, opts=CliOptions(continue_session=True), monkeypatch=monkeypatch
    )
    return list(session.history())


async def test_a_denied_batch_resumes_as_it_was_shown(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, stops = await _denied_session(fake_api, project, monkeypatch)
    assert live["b1"] == ("denied", "Denied by you")
    assert live["b2"] == ("interrupted", "not run: you denied Bash(touch x)")
    history = _resumed(project, monkeypatch, fake_api)
    _same_as_live(_shown(history), live)
    [stop] = [e for e in history if isinstance(e, Interrupted)]
    assert stop == stops[0] and stop.denied == "Bash(touch x)"
    # What lathe records: the tool results' line names the deny that ended the turn.
    path = find_latest(project)
    assert path is not None
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    marked = [line["latheUserDenials"] for line in lines if "latheUserDenials" in line]
    assert marked == [[{"tool_use_id": "b1", "endsTurn": True}]]


async def test_a_deny_with_feedback_resumes_with_the_words_shown_live(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, _ = await _denied_session(fake_api, project, monkeypatch, feedback="make z instead")
    assert live["b1"] == ("denied", "Denied by you · you said: make z instead")
    _same_as_live(_shown(_resumed(project, monkeypatch, fake_api)), live)


async def test_a_transcript_without_the_field_still_loads_as_an_interrupt(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _denied_session(fake_api, project, monkeypatch)
    path = find_latest(project)
    assert path is not None
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        line.pop("latheUserDenials", None)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    loaded = load_transcript(path)
    assert loaded.user_denials == {}
    shown = _shown(replay_events(loaded.messages))
    assert shown["b1"][0] == "interrupted" and shown["b2"][0] == "interrupted"
    # A malformed field is ignored, never fatal.
    lines[-2]["latheUserDenials"] = [{"tool_use_id": 7}, "junk"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert load_transcript(path).user_denials == {}


def test_a_call_before_the_denied_one_names_it_too() -> None:
    from app.execution.texts import INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE

    def result(tool_id: str) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": tool_id, "content": REJECT_MESSAGE,
                "is_error": True}  # fmt: skip

    messages = [
        {"role": "user", "content": "read both"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "ls a"}},
                {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "rm b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                result("a"),
                result("b"),
                {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE},
            ],
        },
    ]
    from tools.registry import get_all_base_tools

    events = replay_events(messages, get_all_base_tools(), {"b": True})
    assert _shown(events) == {
        "a": ("interrupted", "not run: you denied Bash(rm b)"),
        "b": ("denied", "Denied by you"),
    }
    [stop] = [e for e in events if isinstance(e, Interrupted)]
    assert stop.denied == "Bash(rm b)"
