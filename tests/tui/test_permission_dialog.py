"""Pilot tests of the permission dialog: keys, clicks, feedback, key guard, queue, abort."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.tui.screens.permission import PermissionScreen
from tests.tui import scenes
from tests.tui.conftest import SIZE, FixedClock, ScriptedSession, make_app, question
from tools.decisions import DecisionReason, PermissionDecision


async def open_dialog(app, prompt):  # type: ignore[no-untyped-def]
    app.enqueue_permission(prompt)


@pytest.mark.parametrize(
    ("keys", "behavior", "always"),
    [
        (("1",), "allow", False),
        (("2", "enter"), "allow", True),
        (("down", "enter"), "allow", False),
        (("down", "down", "enter"), "allow", True),
        (("up", "enter"), "deny", False),
        (("2", "down", "enter"), "deny", False),
        (("3",), "deny", False),
        (("escape",), "deny", False),
    ],
)
async def test_keys_answer(keys: tuple[str, ...], behavior: str, always: bool) -> None:
    app = make_app()
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press(*keys)
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == behavior
        assert (decision.remember == "always") is always
        if always:
            assert decision.suggestions == ("Bash(npm run test:*)",)
        assert not isinstance(app.screen, PermissionScreen)


@pytest.mark.parametrize(
    "keys",
    [
        (*tuple("please also fix it"), "enter"),  # the `a` once meant "always allow"
        (*tuple("yes now"), "enter"),
        tuple("no"),
        ("2",),  # selects, never answers
        ("2", "2"),  # "fix 22 bugs": still only selected
        ("2", *" bugs", "enter"),  # typing after the 2 clears the selection
        ("enter",),  # nothing selected
    ],
)
async def test_typing_meant_for_the_prompt_never_answers(keys: tuple[str, ...]) -> None:
    app = make_app()
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        assert not prompt.resolver.is_claimed()
        assert isinstance(app.screen, PermissionScreen)


async def test_always_needs_a_selection_held_for_the_guard(clock: FixedClock) -> None:
    app = make_app(dialog_key_guard_s=0.5, clock=clock)
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        clock.now += 1.0  # past the opening guard
        # "#2" and Enter typed in one go: the Enter comes too soon and clears the selection.
        await pilot.press("2", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PermissionScreen) and screen.selected is None
        assert not prompt.resolver.is_claimed()
        clock.now += 1.0
        await pilot.press("enter")  # nothing selected any more
        await pilot.pause()
        assert not prompt.resolver.is_claimed()
        # Deliberately: select, look, confirm.
        await pilot.press("2")
        await pilot.pause()
        assert screen.selected == "allow-always"
        assert screen.query_one("#allow-always").has_class("-selected")
        clock.now += 0.6
        await pilot.press("enter")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.remember == "always"


@pytest.mark.parametrize(
    ("button", "behavior"),
    [("#allow-once", "allow"), ("#allow-always", "allow"), ("#deny", "deny")],
)
async def test_buttons_answer(button: str, behavior: str) -> None:
    app = make_app()
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.click(button)
        await pilot.pause()
        assert prompt.resolver.value is not None
        assert prompt.resolver.value.behavior == behavior


async def test_tab_feedback_is_sent_with_the_denial_and_typing_does_not_answer() -> None:
    app = make_app()
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press("tab", *"yes use yarn test", "enter")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "deny"
        assert decision.feedback == "yes use yarn test"
        assert "yes use yarn test" in decision.message


async def test_esc_in_the_feedback_field_denies_without_it_and_ends_the_turn() -> None:
    from app.engine.answers import ends_turn

    app = make_app()
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press("tab", *"abc", "escape")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "deny"
        assert decision.feedback == "" and "abc" not in decision.message
        assert ends_turn(decision)


async def test_keys_inside_the_guard_are_ignored_but_clicks_work() -> None:
    app = make_app(dialog_key_guard_s=1000.0)
    prompt = scenes.bash_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        await pilot.press("1", "3", "escape", "2", "down", "enter", "tab")
        await pilot.pause()
        assert not prompt.resolver.is_claimed()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.click("#deny")
        await pilot.pause()
        assert prompt.resolver.value is not None and prompt.resolver.value.behavior == "deny"


async def test_always_allow_is_absent_without_a_suggested_rule() -> None:
    app = make_app()
    prompt = scenes.bash_prompt()
    prompt = replace(prompt, suggestions=())
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert not app.screen.query("#allow-always")
        await pilot.press("2", "enter")
        await pilot.pause()
        assert not prompt.resolver.is_claimed()


async def test_requests_queue_one_at_a_time_in_order() -> None:
    app = make_app()
    first, second = scenes.bash_prompt(), scenes.edit_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(first)
        app.enqueue_permission(second)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen) and app.screen.prompt is first
        assert app.waiting_permissions == 1
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen) and app.screen.prompt is second
        await pilot.press("3")
        await pilot.pause()
        assert first.resolver.value.behavior == "allow"  # type: ignore[union-attr]
        assert second.resolver.value.behavior == "deny"  # type: ignore[union-attr]
        assert not isinstance(app.screen, PermissionScreen)


async def test_ctrl_c_while_open_aborts_and_closes_the_dialog() -> None:
    app = make_app()
    session = ScriptedSession(app)
    prompt = scenes.bash_prompt()

    async def ask(s: ScriptedSession) -> None:
        s.open_prompts.append(prompt)
        from app.engine.api import PermissionRequested

        s.emit(PermissionRequested(prompt))
        await prompt.resolver.wait()
        s.interrupted.set() if prompt.resolver.value.reason.kind == "abort" else None  # type: ignore[union-attr]

    session.steps = [ask]
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"run tests", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert session.interrupts == 1
        assert prompt.resolver.value is not None and prompt.resolver.value.reason.kind == "abort"  # type: ignore[union-attr]
        assert not isinstance(app.screen, PermissionScreen)
        assert not app.turn_running


async def test_a_prompt_resolved_elsewhere_closes_and_is_skipped() -> None:
    app = make_app()
    first, second = scenes.bash_prompt(), scenes.edit_prompt()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(first)
        app.enqueue_permission(second)
        await pilot.pause()
        # A hook answers both; the dialog notices on its next check and the queue skips the other.
        second.resolver.resolve(PermissionDecision.allow(DecisionReason("hook", "hook")))
        first.resolver.resolve(PermissionDecision.allow(DecisionReason("hook", "hook")))
        await pilot.pause(0.3)
        assert not isinstance(app.screen, PermissionScreen)
        assert app.waiting_permissions == 0


async def test_bell_when_a_dialog_waits_while_unfocused() -> None:
    app = make_app()
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        app.app_focus = False
        app.enqueue_permission(scenes.bash_prompt())
        await pilot.pause()
        assert rings == [1]


async def test_dialog_footer_shows_its_own_keys() -> None:
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(scenes.bash_prompt())
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        assert screen.query_one(Footer).is_mounted
        shown = {
            b.binding.action
            for b in screen.active_bindings.values()
            if b.binding.show and b.enabled
        }
        assert {"allow_once", "select_always", "deny", "feedback", "confirm"} <= shown
        assert not shown & {"cycle_mode", "toggle_mouse", "quit_twice", "clear_prompt"}
        footer = screen.query_one(Footer)
        labels = {key.description for key in footer.query(FooterKey)}
        assert {"Allow once", "Always (then Enter)", "Deny", "Feedback", "Confirm"} <= labels
        assert not labels & {"Mode", "Mouse", "Quit", "Clear"}


@pytest.mark.parametrize(("command", "warned"), [("rm -rf build", True), ("npm run test", False)])
async def test_destructive_commands_are_flagged(command: str, warned: bool) -> None:
    from tools.bash import BashTool

    app = make_app()
    prompt = question(
        replace(scenes.bash_permission(), tool=BashTool(), input={"command": command})
    )
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        assert bool(app.screen.query("#destructive")) is warned


@pytest.mark.parametrize(
    ("command", "script", "warned"),
    [
        ("bash gen.sh", None, False),  # tui-r5 F11: no gen.sh, nothing runs
        ("sh x.sh", "ls\ncat a.txt\n", False),  # a script that only reads
        ("python3 x.py", None, False),
        ("bash gen.sh", "rm -rf build\n", True),  # a script that deletes keeps the warning
    ],
)
async def test_running_a_script_is_warned_by_what_it_does(
    tmp_path: Path, command: str, script: str | None, warned: bool
) -> None:
    from tools.base import ToolContext
    from tools.bash import BashTool

    (tmp_path / "build").mkdir()
    if script is not None:
        (tmp_path / command.split()[-1]).write_text(script)
    context = ToolContext(
        cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=(str(tmp_path),)
    )
    app = make_app()
    prompt = question(
        replace(
            scenes.bash_permission(), tool=BashTool(), input={"command": command}, context=context
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        assert bool(app.screen.query("#destructive")) is warned


async def test_an_edits_session_choice_answers_with_the_engines_decision() -> None:
    """Key 2 of an edit question ("this file this session") is the engine's allow_for_session
    with the question's session rules (PermissionQuestion.decision_for, as ACP uses it)."""
    app = make_app()
    prompt = replace(
        scenes.bash_prompt(),
        edit=True,
        session_rules=("Edit(/p/a.txt)",),
        accept_edits=True,
        suggestions=("Edit(/p/**)",),
    )
    async with app.run_test(size=SIZE) as pilot:
        app.enqueue_permission(prompt)
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press("2")
        await pilot.pause()
        decision = prompt.resolver.value
        assert decision is not None and decision.behavior == "allow"
        assert decision.remember == "session"
        assert decision.suggestions == ("Edit(/p/a.txt)",)
