"""Snapshots of every distinct state of the screen (pytest-textual-snapshot; SVGs beside this)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from app.engine.events import (
    ErrorOccurred,
    Interrupted,
    Notice,
    Retrying,
    TurnEnded,
    UsageUpdated,
)
from app.execution.events import ToolFinished, ToolProgressed
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app, outcome
from tools.base import ToolProgress


def shot(
    snap_compare: Any, events: list[Any] | None = None, press: tuple[str, ...] = (), **cfg: Any
) -> bool:
    app = make_app(**cfg)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, events or [])
        await scenes.settle(app, pilot)
        for key in press:
            await pilot.press(key)
        await scenes.settle(app, pilot)

    return bool(snap_compare(app, terminal_size=SIZE, run_before=before))


def test_empty(snap_compare: Any) -> None:
    assert shot(snap_compare)


def test_offline_demo_banner(snap_compare: Any) -> None:
    assert shot(snap_compare, offline_demo=True, model="demo")


def test_streaming_markdown(snap_compare: Any) -> None:
    assert shot(snap_compare, scenes.prompt_and_text(scenes.MARKDOWN[:70]))


def test_finished_markdown(snap_compare: Any) -> None:
    events = [*scenes.prompt_and_text(), TurnEnded("end_turn", "", False, "success", 1)]
    assert shot(snap_compare, events)


def test_concurrent_tools_in_progress(snap_compare: Any) -> None:
    assert shot(snap_compare, scenes.concurrent_tools())


def test_finished_tools_leave_panel_after_linger(snap_compare: Any) -> None:
    from tests.tui.conftest import FixedClock

    clock = FixedClock()
    app = make_app(clock=clock)

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, scenes.concurrent_tools())
        clock.now += 5  # the finished Read has lingered long enough
        app.main.progress.prune()
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_diff_of_an_edit(snap_compare: Any) -> None:
    assert shot(snap_compare, scenes.finished_edit())


def test_bash_output_tail_collapsed(snap_compare: Any) -> None:
    assert shot(snap_compare, scenes.finished_bash())


def test_bash_result_expanded_by_click(snap_compare: Any) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        scenes.feed(app, scenes.finished_bash())
        await scenes.settle(app, pilot)
        await pilot.click("ToolBlock")
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_bash_live_output(snap_compare: Any) -> None:
    events = [
        *scenes.finished_bash()[:3],  # queued, started, running
        ToolProgressed("b9", ToolProgress(output="step 1\nstep 2\nstep 3\n", fraction=0.3), 999.5),
    ]
    assert shot(snap_compare, events)


def test_tool_error_and_denial(snap_compare: Any) -> None:
    events = [
        *scenes.concurrent_tools()[:7],
        ToolFinished(
            "g1",
            outcome("g1", "Grep", "<tool_use_error>bad regex</tool_use_error>", is_error=True),
            0.2,
        ),
        ToolFinished(
            "b1",
            outcome(
                "b1",
                "Bash",
                "Permission to use Bash was denied",
                is_error=True,
                permission_denial={"tool_name": "Bash"},
            ),
            0.0,
        ),
    ]
    assert shot(snap_compare, events)


def test_permission_dialog_bash(snap_compare: Any) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(scenes.bash_prompt())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_permission_dialog_edit_diff(snap_compare: Any) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(scenes.edit_prompt())
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_permission_dialog_feedback_open(snap_compare: Any) -> None:
    app = make_app()

    async def before(pilot: Pilot[int]) -> None:
        app.enqueue_permission(scenes.bash_prompt())
        await scenes.settle(app, pilot)
        await pilot.press("tab", *"use yarn")
        await scenes.settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_trust_dialog(snap_compare: Any) -> None:
    assert shot(snap_compare, ask_trust_for="/home/me/work/demo")


SETTINGS_PROBLEMS = (
    "/home/me/work/demo/.lathe/settings.toml:4:1: invalid TOML: Unclosed array (at the end "
    "of the file) (project settings)",
    "/home/me/.claude/settings.json:1: permissions.deny: Input should be a valid list (got "
    "the string 'Bash') (user settings (Claude Code))",
    "/home/me/work/demo/.lathe/settings.toml: if you continue, 1 deny and 0 ask rules kept",
    "/home/me/.claude/settings.json: if you continue, 1 deny and 0 ask rules kept",
)


def test_settings_error_dialog(snap_compare: Any) -> None:
    problems = SETTINGS_PROBLEMS
    assert shot(snap_compare, settings_problems=problems, check_settings=lambda: problems)


def test_resume_picker(snap_compare: Any) -> None:
    from app.tui.ports import SessionSummary

    sessions = [
        SessionSummary("a1b2", "Fix the theme lookup", "2025-01-02 10:00", 42),
        SessionSummary("c3d4", "Add the progress panel", "2025-01-01 09:30", 310),
    ]
    assert shot(snap_compare, press=("/", *"resume", "enter"), list_sessions=lambda: sessions)


def test_interrupt(snap_compare: Any) -> None:
    events = [
        *scenes.concurrent_tools(),
        *[
            ToolFinished(
                t,
                outcome(
                    t,
                    n,
                    "The user doesn't want to proceed",
                    is_error=True,
                    synthetic="user_interrupt",
                ),
                0.0,
            )
            for t, n in (("g1", "Grep"), ("b1", "Bash"), ("w1", "WebFetch"), ("r2", "Read"))
        ],
        Interrupted(during_tools=True),
        TurnEnded(None, "", False, "interrupted", 1),
    ]
    assert shot(snap_compare, events)


def test_api_error(snap_compare: Any) -> None:
    events = [
        *scenes.prompt_and_text("Let me look"),
        ErrorOccurred(
            "API error 400: messages.1: tool_use ids were found without tool_result blocks"
        ),
        TurnEnded(None, "", True, "error_during_execution", 1),
    ]
    assert shot(snap_compare, events)


def test_retry(snap_compare: Any) -> None:
    events = [
        *scenes.prompt_and_text("")[:2],
        Retrying(attempt=2, delay_s=4.0, reason="529 overloaded_error"),
    ]
    assert shot(snap_compare, events)


def test_notices_and_usage(snap_compare: Any) -> None:
    events = [
        Notice("PostToolUse hook: formatted 2 files"),
        Notice("Settings: .lathe/settings.toml:3: unknown key 'permisions'", "warning"),
        UsageUpdated(123_456, 7_890, 100_000, 2_000, 0.4321),
    ]
    assert shot(snap_compare, events)


def test_plan_view(snap_compare: Any) -> None:
    assert shot(snap_compare, [*scenes.prompt_and_text("Working on it")[:3], scenes.todos()])


def test_help_command(snap_compare: Any) -> None:
    assert shot(snap_compare, press=("/", *"help", "enter"))


def test_slash_completion_hint(snap_compare: Any) -> None:
    assert shot(snap_compare, press=("/", "m"))


def test_accept_edits_mode_and_mouse_off(snap_compare: Any) -> None:
    assert shot(snap_compare, press=("shift+tab", "f2"))


def test_prompt_with_text_footer_shows_clear(snap_compare: Any) -> None:
    assert shot(snap_compare, press=(*tuple("two lines"), "shift+enter", *"second"))


@pytest.mark.parametrize("theme", ["lathe-dark", "lathe-light", "lathe-steel"])
def test_theme(snap_compare: Any, theme: str) -> None:
    events = [*scenes.finished_edit(), *scenes.concurrent_tools()[2:]]
    assert shot(snap_compare, events, theme=theme)
