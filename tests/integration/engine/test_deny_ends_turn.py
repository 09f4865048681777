"""A deny that ends the turn (the TUI's deny, as Claude Code's): the batch's other calls do not
run, every tool_use still gets exactly one tool_result (Claude Code's texts), and the model is not
asked again until the user writes. A deny with feedback, or one without the flag (ACP, `-p`), lets
the turn go on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.engine.api import Interrupted, answers
from app.execution.texts import INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, make_session


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "z.txt").write_text("zed\n")
    return project


def _batch(repo: Path) -> list[Any]:
    return [
        turn_of(
            [
                tool_use_block("Bash", {"command": "touch x", "description": "Make x"}, "b1"),
                tool_use_block("Bash", {"command": "touch y"}, "b2"),
                tool_use_block("Read", {"file_path": str(repo / "z.txt")}, "r1"),
            ]
        ),
        text_turn("The model was asked again."),
    ]


async def _question(events: Collector, count: int = 1) -> Any:
    for _ in range(400):
        if len(events.prompts) >= count:
            return events.prompts[count - 1]
        await asyncio.sleep(0.025)
    pytest.fail("no permission question was asked")


def _results(messages: list[Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in messages
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


async def test_a_deny_ends_the_turn_and_the_rest_does_not_run(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.load(_batch(repo))
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("make the files"))
    question = await _question(events)
    assert question.tool_use_id == "b1"
    assert question.answer(answers.deny(end_turn=True))
    ended = await asyncio.wait_for(turn, 10)

    assert ended.subtype == "interrupted"
    assert len(fake_api.bodies()) == 1  # the model is not called again
    assert not (repo / "x").exists() and not (repo / "y").exists()
    assert len(events.prompts) == 1  # the second Bash never asked
    [stop] = events.of(Interrupted)
    assert stop.during_tools and stop.denied == "Bash(touch x)"
    # Exactly one tool_result each, Claude Code's rejection text for all three, then the
    # interrupt marker, in one message.
    last = session.messages[-1]
    results = [b for b in last["content"] if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["b1", "b2", "r1"]
    assert all(r["content"] == REJECT_MESSAGE and r["is_error"] for r in results)
    assert last["content"][-1] == {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE}
    # On screen: plain words, never the model's texts.
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert (views["b1"].status, views["b1"].result.summary) == ("denied", "Denied by you")
    for other in ("b2", "r1"):
        assert views[other].status == "interrupted"
        assert views[other].result.summary == "not run: you denied Bash(touch x)"
    assert ended.permission_denials[0]["tool_use_id"] == "b1"

    # The conversation stays valid: the user's next words go with those results.
    again = await session.run_turn("do something else")
    assert again.result_text == "The model was asked again."
    sent = fake_api.bodies()[-1]["messages"]
    assert [r["tool_use_id"] for r in _results(sent)] == ["b1", "b2", "r1"]
    assert "do something else" in str(sent[-1]["content"])


async def test_a_deny_with_feedback_goes_on(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.load(_batch(repo))
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("make the files"))
    first = await _question(events)
    # The feedback wins over the flag: the model reads it at once.
    assert first.answer(answers.deny("make z instead", end_turn=True))
    second = await _question(events, 2)
    assert second.tool_use_id == "b2"
    assert second.choose("allow_once")
    ended = await asyncio.wait_for(turn, 10)
    assert ended.result_text == "The model was asked again."
    assert (repo / "y").exists() and not (repo / "x").exists()
    results = {r["tool_use_id"]: r for r in _results(fake_api.bodies()[1]["messages"])}
    assert results["b1"]["content"].endswith("the user said:\nmake z instead")
    assert "zed" in str(results["r1"]["content"])
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert views["b1"].result.summary == "Denied by you · you said: make z instead"


async def test_a_deny_without_the_flag_judges_each_call_on_its_own(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.load(_batch(repo))
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("make the files"))
    assert (await _question(events)).answer(answers.deny())
    assert (await _question(events, 2)).answer(answers.deny())
    ended = await asyncio.wait_for(turn, 10)
    assert ended.result_text == "The model was asked again."
    assert not events.of(Interrupted)


async def test_a_deny_closes_the_other_open_question_and_stops_a_running_call(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two reads outside the working folders are concurrency-safe: both ask at once. Denying one
    # answers the other (its dialog closes) and neither runs.
    outside = repo.parent / f"{repo.name}-outside.txt"
    outside.write_text("outside\n")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(outside)}, "o1"),
                    tool_use_block("Read", {"file_path": str(outside) + "x"}, "o2"),
                ]
            ),
            text_turn("never"),
        ]
    )
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("read outside"))
    first = await _question(events)
    second = await _question(events, 2)
    assert first.answer(answers.deny(end_turn=True))
    ended = await asyncio.wait_for(turn, 10)
    assert ended.subtype == "interrupted"
    assert second.answered and not second.choose("allow_once")
    assert len(fake_api.bodies()) == 1
    views = {v.tool_use_id: v for v in events.calls("finished")}
    assert views[second.tool_use_id].result.summary.startswith("not run: you denied Read(")
