"""The choices a question offers are proved against the real decider: no "always" rule the
analysis would not let approve the call, and edits offer once / this file for the session /
acceptEdits / always for this file, never a rule for the whole project."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, make_session


@pytest.fixture
def repo(project: Path) -> Path:
    return project


async def _ask(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[Any]
) -> tuple[Any, Any, Collector, asyncio.Future[Any]]:
    fake_api.load([turn_of(blocks), text_turn("done")])
    session, events = make_session(fake_api, repo, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("go"))
    for _ in range(400):
        if events.prompts:
            return session, events.prompts[0], events, turn
        await asyncio.sleep(0.025)
    pytest.fail("no question was asked")


def _ids(question: Any) -> list[str]:
    return [c.id for c in question.choices]


@pytest.mark.parametrize(
    "command",
    [
        "echo $(date) > stamp.txt",  # a redirect to a file: no rule covers it
        "FOO=1 make build",  # an env-assignment prefix: no rule covers it
        # A substitution: an exact rule would have to re-quote it (`echo '$(date)'`), naming
        # another command; nothing is offered, as the Why says and as Claude Code does.
        "echo $(date) && sleep 1 && echo done",
    ],
)
async def test_no_always_rule_when_none_can_approve_the_call(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    _, question, _, turn = await _ask(
        fake_api, repo, monkeypatch, [tool_use_block("Bash", {"command": command}, "b1")]
    )
    assert _ids(question) == ["allow_once", "deny"], question.choices
    assert question.suggestions == ()
    assert not question.choose("allow_always")  # not offered: refused
    assert question.choose("deny")
    await asyncio.wait_for(turn, 10)


async def test_an_always_rule_is_offered_when_it_approves_the_call(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, question, _, turn = await _ask(
        fake_api, repo, monkeypatch, [tool_use_block("Bash", {"command": "make build"}, "b1")]
    )
    assert _ids(question) == ["allow_once", "allow_always", "deny"]
    [always] = [c for c in question.choices if c.id == "allow_always"]
    assert always.confirm and always.rules == question.suggestions and always.key == "2"
    assert question.choose("deny")
    await asyncio.wait_for(turn, 10)


async def test_edit_choices_and_this_file_for_the_session(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = repo / "notes.txt"
    target.write_text("one\n")
    other = repo / "other.txt"
    blocks = [
        tool_use_block("Read", {"file_path": str(target)}, "r1"),  # Edit wants the file read
        tool_use_block(
            "Edit", {"file_path": str(target), "old_string": "one", "new_string": "two"}, "e1"
        ),
    ]
    session, question, events, turn = await _ask(fake_api, repo, monkeypatch, blocks)
    assert _ids(question) == [
        "allow_once",
        "allow_session",
        "accept_edits",
        "allow_always",
        "deny",
    ]
    keys = {c.id: (c.key, c.confirm) for c in question.choices}
    assert keys == {
        "allow_once": ("1", False),
        "allow_session": ("2", False),
        "accept_edits": ("4", True),
        "allow_always": ("5", True),
        "deny": ("3", False),
    }
    # "Always" for one file is that file's rule, never the whole project's.
    assert question.suggestions == ("Edit(./notes.txt)",)
    assert question.choose("allow_session")
    await asyncio.wait_for(turn, 10)
    assert target.read_text() == "two\n"
    assert not (repo / ".lathe" / "settings.local.toml").exists()  # nothing saved

    # The same file again goes on without a question; another file asks.
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Edit",
                        {"file_path": str(target), "old_string": "two", "new_string": "three"},
                        "e2",
                    ),
                    tool_use_block("Write", {"file_path": str(other), "content": "new\n"}, "w1"),
                ]
            ),
            text_turn("again"),
        ]
    )
    second = asyncio.ensure_future(session.run_turn("again"))
    for _ in range(400):
        if len(events.prompts) > 1:
            break
        await asyncio.sleep(0.025)
    asked = events.prompts[1]
    assert asked.tool_name == "Write" and asked.suggestions == ("Edit(./other.txt)",)
    assert target.read_text() == "three\n"
    assert asked.choose("allow_always")
    await asyncio.wait_for(second, 10)
    saved = (repo / ".lathe" / "settings.local.toml").read_text()
    assert "Edit(./other.txt)" in saved and "./**" not in saved


async def test_accept_all_edits_switches_the_mode(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = [tool_use_block("Write", {"file_path": str(repo / "a.txt"), "content": "a\n"}, "w1")]
    session, question, _, turn = await _ask(fake_api, repo, monkeypatch, blocks)
    assert session.permission_mode == "default"
    assert question.choose("accept_edits")
    await asyncio.wait_for(turn, 10)
    assert session.permission_mode == "acceptEdits"
    assert (repo / "a.txt").read_text() == "a\n"


async def test_an_edit_outside_the_folders_offers_no_accept_edits(
    fake_api: FakeAPI, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # acceptEdits approves edits inside the working folders only: offering it would not help.
    outside = repo.parent / f"{repo.name}-elsewhere.txt"
    blocks = [tool_use_block("Write", {"file_path": str(outside), "content": "a\n"}, "w1")]
    _, question, _, turn = await _ask(fake_api, repo, monkeypatch, blocks)
    assert "accept_edits" not in _ids(question)
    assert question.suggestions == (f"Edit(/{outside})",)
    assert question.choose("deny")
    await asyncio.wait_for(turn, 10)
