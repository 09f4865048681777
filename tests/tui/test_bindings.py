"""Pilot tests of the main screen's keys: sending, history, completion, Ctrl+C, Esc, Shift+Tab, F2."""

from __future__ import annotations

import asyncio

from app.tui.app import LatheApp
from tests.tui.conftest import SIZE, FixedClock, ScriptedSession, make_app, wait_for_interrupt
from widgets.message_blocks import NoticeBlock, UserBlock


def active_footer(app: LatheApp) -> set[str]:
    return {b.binding.action for b in app.screen.active_bindings.values() if b.enabled}


async def test_enter_sends_and_shift_enter_adds_a_line() -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"one", "shift+enter", *"two", "ctrl+j", *"three")
        assert app.main.prompt.text == "one\ntwo\nthree"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert session.prompts == ["one\ntwo\nthree"]
        assert app.main.prompt.text == ""
        users = list(app.main.conversation.query(UserBlock))
        assert [u.text for u in users] == ["one\ntwo\nthree"]


async def test_blank_prompt_is_not_sent() -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "enter")
        await pilot.pause()
        assert session.prompts == []


async def test_history_up_and_down() -> None:
    app = make_app()
    app.session = ScriptedSession(app)
    async with app.run_test(size=SIZE) as pilot:
        for text in ("first", "second"):
            await pilot.press(*text, "enter")
            await app.workers.wait_for_complete()
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.main.prompt.text == "second"
        await pilot.press("up")
        assert app.main.prompt.text == "first"
        await pilot.press("down")
        assert app.main.prompt.text == "second"
        await pilot.press("down")
        assert app.main.prompt.text == "draft"


async def test_tab_completes_slash_commands() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "h", "e")
        assert [c.name for c in app.main.prompt.completions()] == ["help"]
        assert app.main.hint.has_class("-active")
        await pilot.press("tab")
        assert app.main.prompt.text == "/help "
        await pilot.press("ctrl+c")  # idle with text: clears
        await pilot.press("/", "p")
        await pilot.press("tab")
        assert app.main.prompt.text == "/permissions "


async def test_ctrl_c_interrupts_a_running_turn() -> None:
    app = make_app()
    session = ScriptedSession(app, steps=[wait_for_interrupt])
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"long job", "enter")
        await pilot.pause()
        assert app.turn_running
        assert "interrupt" in active_footer(app)
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert session.interrupts == 1
        assert not app.turn_running
        texts = [n.text for n in app.main.conversation.query(NoticeBlock)]
        assert any(t.startswith("Interrupted") for t in texts)
        assert not app._exit  # interrupting never quits


async def test_escape_interrupts_a_running_turn_and_not_when_idle() -> None:
    app = make_app()
    session = ScriptedSession(app, steps=[wait_for_interrupt])
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert session.interrupts == 0
        await pilot.press(*"go", "enter")
        await pilot.pause()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        assert session.interrupts == 1


async def test_ctrl_c_clears_text_then_quits_on_second_press() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"abc")
        assert active_footer(app) >= {"clear_prompt"}
        await pilot.press("ctrl+c")
        assert app.main.prompt.text == ""
        assert "quit_twice" in active_footer(app)
        await pilot.press("ctrl+c")
        assert not app._exit
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_c_twice_after_the_window_does_not_quit() -> None:
    clock = FixedClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        clock.now += 2.5
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and not app._exit
        clock.now += 1.0
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_shift_tab_cycles_permission_mode() -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append(session.permission_mode)
        assert seen == ["acceptEdits", "plan", "default"]
        assert app.main.status_bar.info.permission_mode == "default"
        session.permission_mode = "bypassPermissions"
        await pilot.press("shift+tab")
        assert session.permission_mode == "default"


async def test_f2_toggles_mouse_capture() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        assert app.mouse_reporting is False
        assert app.main.status_bar.info.mouse_captured is False
        await pilot.press("f2")
        assert app.main.status_bar.info.mouse_captured is True


async def test_prompt_during_a_turn_is_queued_and_sent_after() -> None:
    app = make_app()
    gate = asyncio.Event()

    async def wait_gate(s: ScriptedSession) -> None:
        await gate.wait()

    session = ScriptedSession(app, steps=[wait_gate])
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "enter")
        await pilot.pause()
        await pilot.press(*"second", "enter")
        await pilot.pause()
        assert session.prompts == ["first"]
        gate.set()
        for _ in range(5):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert session.prompts == ["first", "second"]


async def test_session_factory_runs_after_first_paint_and_sends_initial_prompt() -> None:
    built: list[ScriptedSession] = []
    app: LatheApp

    async def factory(sink: object) -> ScriptedSession:
        session = ScriptedSession(app)
        built.append(session)
        return session

    app = LatheApp(make_app().config, session_factory=factory)
    app.config.initial_prompt = "hello"
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert built and built[0].prompts == ["hello"]


async def test_failing_session_factory_is_reported_not_crashed() -> None:
    async def factory(sink: object) -> ScriptedSession:
        raise RuntimeError("no credentials")

    app = LatheApp(make_app().config, session_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        texts = [n.text for n in app.main.conversation.query(NoticeBlock)]
        assert any("no credentials" in t for t in texts)


async def test_shift_tab_under_a_dialog_never_changes_the_mode_behind_it() -> None:
    """Shift+Tab with a dialog open (black-box round 3, C64): at an edit it selects "accept all
    edits" (Enter confirms it, and that switches the mode); at any other dialog it does nothing.
    The mode never changes under a question asked in the mode shown."""
    from app.tui.screens.permission import PermissionScreen
    from tests.tui import scenes, tool_scenes

    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        bash = scenes.bash_prompt()
        app.enqueue_permission(bash)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert session.permission_mode == "default" and not bash.answered
        assert app.screen.selected is None
        await pilot.press("3")
        await pilot.pause()
        edit = tool_scenes.edit_question()
        app.enqueue_permission(edit)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert session.permission_mode == "default" and not edit.answered
        assert screen.selected == "accept-edits"
        await pilot.press("enter")
        await pilot.pause()
        assert edit.resolver.value is not None and edit.resolver.value.behavior == "allow"
        assert not isinstance(app.screen, PermissionScreen)
