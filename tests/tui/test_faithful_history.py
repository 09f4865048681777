"""`-c`/`-r` show the history as it was shown live: interrupt markers as markers (never as if
the user typed "[Request interrupted by user]"), a custom command as the `/name args` typed,
tool calls as tool blocks with their results (an interrupted one as interrupted), compaction
boundaries as markers. The end-to-end test makes its transcript with a real interrupted session
and resumes it as `lathe -c` does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions, parse_args
from app.compose_tui import make_app
from app.engine.api import (
    CompactionFinished,
    Interrupted,
    ToolCallUpdated,
    TurnStarted,
)
from app.engine.compact_prompt import SUMMARY_INTRO
from app.engine.replay import replay_events
from app.execution.texts import INTERRUPTED, INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from app.tui.event_router import INTERRUPTED_TEXT
from app.tui.history import archived_renderables
from tests.support.engine import fake_env, make_session
from tests.tui.conftest import SIZE
from widgets.message_blocks import NoticeBlock, UserBlock
from widgets.tool_block import ToolBlock

pytestmark = pytest.mark.timeout(90)


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [_text(SUMMARY_INTRO + "\n<summary>earlier work</summary>")]},
    {"role": "assistant", "content": [_text("Noted.")]},
    {
        "role": "user",
        "content": [
            _text(
                "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
                "<command-args>src/app.py</command-args>"
            ),
            _text("Review the file src/app.py for bugs. Be thorough."),
            _text("<system-reminder>\nContents of src/app.py ...\n</system-reminder>"),
        ],
    },
    {
        "role": "assistant",
        "content": [
            _text("Running the tests."),
            {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "pytest"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "b1",
                "content": REJECT_MESSAGE,
                "is_error": True,
            },
            _text(INTERRUPTED_FOR_TOOL_USE),
        ],
    },
    {"role": "user", "content": [_text("try again, quicker")]},
    {"role": "assistant", "content": [_text("Half an answer")]},
    {"role": "user", "content": [_text(INTERRUPTED)]},
]


def test_markers_commands_and_tools_replay_as_they_were_shown() -> None:
    events = replay_events(MESSAGES)
    prompts = [e.prompt for e in events if isinstance(e, TurnStarted)]
    assert prompts == ["/review src/app.py", "try again, quicker"]
    assert [e.during_tools for e in events if isinstance(e, Interrupted)] == [True, False]
    assert len([e for e in events if isinstance(e, CompactionFinished)]) == 1
    [finished] = [e for e in events if isinstance(e, ToolCallUpdated) and e.change == "finished"]
    assert finished.view.status == "interrupted"


async def test_the_archive_and_the_live_tail_show_markers_not_prompts() -> None:
    from tests.tui.conftest import make_app as make_test_app

    archived = "\n".join(str(r.renderable) for r in archived_renderables(replay_events(MESSAGES)))
    assert INTERRUPTED_TEXT in archived and "[Request interrupted" not in archived
    app = make_test_app()
    async with app.run_test(size=SIZE) as pilot:
        for event in replay_events(MESSAGES):
            app.handle_engine_event(event)
        await pilot.pause()
        conversation = app.main.conversation
        users = [b.text for b in conversation.query(UserBlock)]
        assert users == ["/review src/app.py", "try again, quicker"]
        markers = [b.text for b in conversation.query(NoticeBlock) if b.level == "interrupt"]
        assert markers == [INTERRUPTED_TEXT, INTERRUPTED_TEXT]
        [bash] = list(conversation.query(ToolBlock))
        assert bash.state.status == "interrupted"


async def until(condition: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_lathe_c_after_a_real_interrupt(
    fake_api: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".git").mkdir()
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "sleep 20"}, "slow")]),
            text_turn("never sent"),
        ]
    )
    session, events = make_session(
        fake_api, project, opts=CliOptions(permission_mode="bypassPermissions")
    )
    turn = asyncio.ensure_future(session.run_turn("run the slow thing"))
    await until(lambda: bool(events.calls("started")))
    assert session.interrupt()
    await turn
    await session.close()
    for key, value in fake_env(fake_api).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    set_trusted(project)
    app = make_app(parse_args(["-c"]), project)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session is not None)
        await until(lambda: bool(app.main.conversation.query(ToolBlock)))
        await pilot.pause()
        conversation = app.main.conversation
        assert [b.text for b in conversation.query(UserBlock)] == ["run the slow thing"]
        [bash] = list(conversation.query(ToolBlock))
        assert bash.state.status == "interrupted"
        levels = [b.level for b in conversation.query(NoticeBlock)]
        assert "interrupt" in levels
