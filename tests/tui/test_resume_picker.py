"""The resume picker: one picker for `lathe -r`, before any session is built; past sessions only
(a launch leaves no file until the first prompt); search, first prompt, when, branch and size.
The end-to-end tests run the App as `lathe` builds it (compose_tui.make_app) on real sessions
against the HTTP fake."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from app.cli import parse_args
from app.compose_tui import make_app
from app.model.scenario import text_turn
from app.permissions.trust import set_trusted
from app.transcript import project_transcripts_dir
from app.tui.ports import SessionSummary
from app.tui.screens.resume import ResumeScreen, relative_time, session_label
from tests.support.engine import fake_env, make_session
from tests.tui.conftest import SIZE
from tests.tui.conftest import make_app as make_test_app
from widgets.message_blocks import AssistantBlock, UserBlock

pytestmark = pytest.mark.timeout(90)

SESSIONS = [
    SessionSummary("s-login", "fix the login bug in auth.py", "3 minutes ago", 4, "feature-x"),
    SessionSummary("s-readme", "write a readme for the project", "2 hours ago", 12, "main"),
    SessionSummary("s-tests", "make the tests faster", "5 days ago", 1, "main"),
]


async def until(condition: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def test_label_has_prompt_time_branch_and_count() -> None:
    label = session_label(SESSIONS[0]).plain
    assert label == "fix the login bug in auth.py\n3 minutes ago · feature-x · 4 messages"
    assert session_label(SESSIONS[2]).plain.endswith("· 1 message")


def test_relative_time() -> None:
    assert relative_time(100, 114) == "14 seconds ago"
    assert relative_time(0, 60) == "1 minute ago"
    assert relative_time(0, 3 * 3600 + 5) == "3 hours ago"
    assert relative_time(0, 2 * 86400) == "2 days ago"


async def test_search_arrows_enter_and_escape() -> None:
    app = make_test_app()
    picked: list[str | None] = []
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ResumeScreen(SESSIONS), picked.append)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        await pilot.press(*"main")  # the branch matches too
        assert [s.session_id for s in screen.shown] == ["s-readme", "s-tests"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert picked == ["s-tests"]
        app.push_screen(ResumeScreen(SESSIONS), picked.append)
        await pilot.pause()
        await pilot.press(*"no such thing")
        screen = app.screen
        assert isinstance(screen, ResumeScreen) and screen.shown == []
        await pilot.press("escape")  # clears the search first
        assert len(screen.shown) == 3 and app.screen is screen
        await pilot.press("down", "down", "up", "enter")
        await pilot.pause()
        assert picked == ["s-tests", "s-readme"]
        app.push_screen(ResumeScreen(SESSIONS), picked.append)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert picked[-1] is None and not isinstance(app.screen, ResumeScreen)


def _past_session(fake: Any, project: Path, prompt: str) -> str:
    session, _ = make_session(fake, project)

    async def run() -> None:
        await session.run_turn(prompt)
        await session.close()

    asyncio.run(run())
    return session.session_id


@pytest.fixture
def two_past_sessions(fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    fake_api.load([text_turn("Looked at it."), text_turn("Wrote it."), text_turn("Resumed.")])
    ids = [
        _past_session(fake_api, project, "fix the login bug"),
        _past_session(fake_api, project, "write a readme"),
    ]
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    return ids


def _files(project: Path) -> set[str]:
    return {p.name for p in project_transcripts_dir(project).glob("*.jsonl")}


async def test_lathe_r_opens_one_picker_and_builds_only_the_chosen_session(
    two_past_sessions: list[str], project: Path
) -> None:
    before = _files(project)
    assert len(before) == 2
    app = make_app(parse_args(["-r"]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, ResumeScreen))
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        assert app.session is None  # nothing is built before the choice
        # Newest first, each with its first prompt and branch; no empty "(no prompt)" entry.
        assert [s.title for s in screen.shown] == ["write a readme", "fix the login bug"]
        assert {s.branch for s in screen.shown} == {"feature-x"}
        await pilot.press("down", "enter")
        await until(lambda: app.session is not None)
        assert app.session.session_id == two_past_sessions[0]
        await until(lambda: bool(app.main.conversation.query(AssistantBlock)))
        await pilot.pause(0.3)
        # The one picker: none opens after the choice.
        assert not any(isinstance(s, ResumeScreen) for s in app.screen_stack)
        prompts = [b.text for b in app.main.conversation.query(UserBlock)]
        assert prompts == ["fix the login bug"]
    assert _files(project) == before  # no new session file: nothing was typed


async def test_escape_in_the_first_picker_quits(
    two_past_sessions: list[str], project: Path
) -> None:
    app = make_app(parse_args(["-r"]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, ResumeScreen))
        await pilot.press("escape")
        await until(lambda: app.return_code is not None)
    assert app.return_code == 0 and app.session is None


async def test_a_launch_leaves_no_session_until_the_first_prompt(
    two_past_sessions: list[str], project: Path
) -> None:
    before = _files(project)
    app = make_app(parse_args([]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session is not None)
        await pilot.pause(0.2)
        assert _files(project) == before
        # /resume lists the past sessions, not this one.
        app.run_slash_command("/resume")
        await until(lambda: isinstance(app.screen, ResumeScreen))
        screen = app.screen
        assert isinstance(screen, ResumeScreen) and len(screen.shown) == 2
        await pilot.press("escape")
        app.submit_prompt("hello")
        await until(lambda: len(_files(project)) == 3)


def test_first_prompt_is_what_was_typed() -> None:
    from app.transcript import first_prompt_of

    command = (
        "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
        "<command-args>app.py</command-args>"
    )
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": command},
                {"type": "text", "text": "Review app.py"},
            ],
        },
    ]
    assert first_prompt_of(messages) == "/review app.py"
    assert first_prompt_of([{"role": "user", "content": "[Request interrupted by user]"}]) == ""
    assert first_prompt_of([{"role": "user", "content": " plain "}]) == "plain"


MANY = [
    SessionSummary(f"s-{n}", f"hello number {n}", f"{n} minutes ago", 2, "main") for n in range(12)
]


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_hint_stays_on_screen_when_the_list_is_longer(size: tuple[int, int]) -> None:
    """tui-r5 F9: with more sessions than fit, the key hint stays below the list (it was pushed
    under the frame's bottom border), and the highlighted session stays in view as it moves."""
    app = make_test_app()
    async with app.run_test(size=size) as pilot:
        app.push_screen(ResumeScreen(MANY), lambda _: None)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ResumeScreen)

        def hint_visible() -> bool:
            hint = screen.query_one("#hint", Static)
            dialog = screen.query_one("#dialog")
            inner = dialog.content_region
            return hint.region.height == 1 and inner.contains_region(hint.region)

        assert hint_visible()
        for _ in range(8):
            await pilot.press("down")
        await pilot.pause()
        assert hint_visible()
        options = screen.option_list
        assert options.highlighted_option is not None
        assert options.highlighted_option.id == "s-8"
        # The list scrolled to keep it in view, inside the dialog above the hint.
        assert options.scroll_y > 0
        assert screen.query_one("#dialog").content_region.contains_region(options.region)
