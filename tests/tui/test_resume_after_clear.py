"""tui-r4 F7: a session in which the user ran /clear stays resumable. Claude Code starts a new
session at /clear, so the conversation before it is still listed by its first prompt and
resumes; lathe keeps both in one transcript, so the picker lists each conversation a /clear
ended and resuming one forks the session at its last line (the old file is left as it was)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.cli import parse_args
from app.compose_tui import make_app
from app.model.scenario import text_turn
from app.permissions.trust import set_trusted
from app.transcript import cleared_parts, project_transcripts_dir
from app.tui.screens.resume import ResumeScreen
from tests.support.engine import fake_env, make_session
from tests.tui.conftest import SIZE
from widgets.message_blocks import AssistantBlock, UserBlock

pytestmark = pytest.mark.timeout(90)


async def until(condition: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def _session_with_clear(fake: Any, project: Path, before: str, after: str | None) -> str:
    session, _ = make_session(fake, project)

    async def run() -> None:
        await session.run_turn(before)
        assert session.clear()
        if after is not None:
            await session.run_turn(after)
        await session.close()

    asyncio.run(run())
    return session.session_id


@pytest.fixture
def env(fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    fake_api.load([text_turn("Zebras are striped."), text_turn("After."), text_turn("Again.")])
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    return fake_api


@pytest.fixture
def zebra(env: Any, project: Path) -> str:
    """A past session: one prompt and its answer, then /clear (and nothing after it)."""
    return _session_with_clear(env, project, "unique zebra prompt", None)


def _files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in project_transcripts_dir(project).glob("*.jsonl")}


async def test_the_conversation_before_clear_is_listed_and_resumes(
    env: Any, zebra: str, project: Path
) -> None:
    old_id = zebra
    before = _files(project)
    app = make_app(parse_args(["-r"]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, ResumeScreen))
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        await pilot.press(*"zebra")
        assert [(s.title, s.messages) for s in screen.shown] == [("unique zebra prompt", 2)]
        await pilot.press("enter")
        await until(lambda: app.session is not None)
        await until(lambda: bool(app.main.conversation.query(AssistantBlock)))
        assert [b.text for b in app.main.conversation.query(UserBlock)] == ["unique zebra prompt"]
        # A new session holds it (the fork); the model is sent the conversation on the next turn.
        assert app.session.session_id != old_id
        app.submit_prompt("and then?")
        await until(lambda: len(env.requests) == 2)
    sent = env.requests[-1].body["messages"]
    assert "unique zebra prompt" in str(sent[0]) and "and then?" in str(sent[-1])
    after = _files(project)
    assert {k: v for k, v in after.items() if k in before} == before  # the old file as it was
    assert len(after) == 2


def test_each_cleared_conversation_is_a_part_and_the_current_one_stays_the_session(
    env: Any, project: Path
) -> None:
    _session_with_clear(env, project, "first zebra words", "words after the clear")
    (path,) = project_transcripts_dir(project).glob("*.jsonl")
    parts = cleared_parts(path)
    assert [(p.first_prompt, p.messages) for p in parts] == [("first zebra words", 2)]
    from app.transcript import list_sessions

    (whole,) = list_sessions(project)
    assert (whole.first_prompt, whole.messages) == ("words after the clear", 2)


async def test_resume_in_the_same_session_lists_what_its_clear_ended(
    env: Any, project: Path
) -> None:
    """tui-r5 F3: `zebra`, /clear, `yak`, /clear, `koala`, then /resume in that same session
    lists "yak" and "zebra" (as `lathe -r` does, as Claude Code does), never the open one."""
    env.load([text_turn("Z."), text_turn("Y."), text_turn("K.")])
    app = make_app(parse_args([]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session is not None)
        for prompt in ("zebra one", "/clear", "yak two", "/clear", "koala three"):
            app.submit_prompt(prompt)
            await until(lambda: not app.turn_running)
            await pilot.pause()
        await until(lambda: len(env.requests) == 3)
        app.submit_prompt("/resume")
        await until(lambda: isinstance(app.screen, ResumeScreen))
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        assert [(s.title, s.messages) for s in screen.shown] == [
            ("yak two", 2),
            ("zebra one", 2),
        ]
        await pilot.press(*"yak")
        assert [s.title for s in screen.shown] == ["yak two"]
        await pilot.press("enter")
        await until(lambda: bool(app.main.conversation.query(AssistantBlock)))
        assert [b.text for b in app.main.conversation.query(UserBlock)] == ["yak two"]
