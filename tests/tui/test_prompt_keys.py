"""Pilot tests of the prompt's keys (issue 17, input): the completion popup and its arrows, the
new-line keys, scrolling the conversation from the prompt, and the focus that never leaves it."""

from __future__ import annotations

from pathlib import Path

from app.tui.app import LatheApp
from app.tui.key_parser import KeyParser
from tests.tui import scenes
from tests.tui.conftest import SIZE, ScriptedSession, make_app, wait_for_interrupt
from widgets.message_blocks import NoticeBlock
from widgets.path_complete import PathIndex
from widgets.prompt_input import PromptInput


def popup_names(app: LatheApp) -> list[str]:
    popup = app.main.prompt.popup
    return [] if popup is None else [item.name for item in popup.items]


def highlighted(app: LatheApp) -> str:
    popup = app.main.prompt.popup
    assert popup is not None
    return popup.current.name


async def send(app: LatheApp, pilot: object, *prompts: str) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    for text in prompts:
        app.main.prompt.load_text(text)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()


async def test_slash_popup_follows_the_arrows_and_tab_accepts() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/")
        await pilot.pause()
        names = popup_names(app)
        assert names[:3] == ["help", "clear", "model"]
        assert highlighted(app) == "help"
        assert "❯ /help" in str(app.main.hint.render())
        await pilot.press("down", "down")
        await pilot.pause()
        assert highlighted(app) == "model"
        hint = str(app.main.hint.render())
        assert "❯ /model" in hint and "❯ /help" not in hint
        await pilot.press("up", "up", "up")  # wraps to the last command
        assert highlighted(app) == names[-1]
        await pilot.press("down", "down")
        await pilot.press("tab")
        assert app.main.prompt.text == "/clear "
        assert app.focused is app.main.prompt
        await pilot.pause()
        assert not app.main.hint.has_class("-active")


async def test_enter_on_the_slash_popup_runs_the_highlighted_command() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/he", "enter")
        await pilot.pause()
        notices = [b.text for b in app.main.conversation.query(NoticeBlock)]
        assert any(text.startswith("Keys:") for text in notices)
        assert app.main.prompt.text == ""


async def test_escape_closes_the_popup_before_it_interrupts() -> None:
    app = make_app()
    session = ScriptedSession(app, steps=[wait_for_interrupt])
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"long job", "enter")
        await pilot.pause()
        assert app.turn_running
        await pilot.press(*"/he")
        await pilot.pause()
        assert app.main.hint.has_class("-active")
        await pilot.press("escape")
        await pilot.pause()
        assert not app.main.hint.has_class("-active")
        assert session.interrupts == 0 and app.main.prompt.text == "/he"
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        assert session.interrupts == 1
        await pilot.press("backspace")  # the popup comes back once the text changes
        await pilot.pause()
        assert popup_names(app) == ["help"] and app.main.hint.has_class("-active")


async def test_tab_never_moves_focus_and_nothing_typed_is_lost() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"plain words", "tab", "tab")
        assert app.focused is app.main.prompt
        await pilot.press(*" more")
        assert app.main.prompt.text == "plain words more"


async def test_keys_typed_elsewhere_go_to_the_prompt() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, scenes.finished_bash())
        await scenes.settle(app, pilot)
        await pilot.click("ToolBlock")
        block = app.main.conversation.query_one("ToolBlock")
        assert app.focused is block and block.expanded  # type: ignore[attr-defined]
        await pilot.press("space")  # the block's own key still works
        assert not block.expanded  # type: ignore[attr-defined]
        await pilot.press(*"hello")
        assert app.main.prompt.text == "hello"
        assert app.focused is app.main.prompt


async def test_tab_offers_earlier_prompts_containing_the_text() -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "fix the theme", "run the tests", "fix the loader")
        await pilot.press(*"fix", "tab")
        await pilot.pause()
        popup = app.main.prompt.popup
        assert popup is not None and popup.kind == "history"
        assert popup_names(app) == ["fix the loader", "fix the theme"]  # newest first
        await pilot.press(*" the")  # the list follows what is typed
        assert popup_names(app) == ["fix the loader", "fix the theme"]
        await pilot.press("down", "enter")
        assert app.main.prompt.text == "fix the theme"
        assert len(session.prompts) == 3  # accepted into the prompt, not sent
        await pilot.pause()
        assert app.main.prompt.popup is None
        app.main.prompt.clear()
        await pilot.press("tab")  # an empty prompt: every earlier prompt
        assert popup_names(app) == ["fix the loader", "run the tests", "fix the theme"]


async def test_history_walk_is_not_caught_by_a_slash_popup() -> None:
    app = make_app()
    app.session = ScriptedSession(app)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first", "/cost", "third")
        await pilot.press("up", "up")
        assert app.main.prompt.text == "/cost"
        await pilot.press("up")
        assert app.main.prompt.text == "first"
        await pilot.press("down", "down")
        assert app.main.prompt.text == "third"


async def test_path_popup_arrows_and_folders(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "engine.py").write_text("x")
    (tmp_path / "src" / "ending.py").write_text("x")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.prompt.paths = PathIndex(tmp_path)
        await pilot.press(*"see @src")
        await pilot.pause()
        assert highlighted(app) == "src/"
        await pilot.press("tab")  # a folder: the popup goes on with what is inside
        assert app.main.prompt.text == "see @src/"
        assert popup_names(app) == ["src/ending.py", "src/engine.py"]
        await pilot.press("down", "enter")  # Enter accepts a path; it does not send
        assert app.main.prompt.text == "see @src/engine.py "
        assert app.main.prompt.popup is None


async def test_new_line_keys_and_enter_sends() -> None:
    app = make_app()
    session = ScriptedSession(app)
    app.session = session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"a", "backslash", "enter", "b", "alt+enter", "c", "ctrl+j", "d")
        await pilot.press("shift+enter", "e")
        assert app.main.prompt.text == "a\nb\nc\nd\ne"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert session.prompts == ["a\nb\nc\nd\ne"]


def test_the_terminal_parser_tells_alt_enter_from_enter() -> None:
    """ESC CR (Alt+Enter in xterm, VTE and tmux) is alt+enter, not Enter; a lone CR is Enter."""
    keys = [e.key for e in KeyParser().feed("a\x1b\rb\r") if hasattr(e, "key")]
    assert keys == ["a", "alt+enter", "b", "enter"]


async def test_page_keys_and_home_end_scroll_the_conversation() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for i in range(60):
            app.notice(f"notice {i}")
        await pilot.pause()
        await pilot.pause()
        conversation = app.main.conversation
        bottom = conversation.max_scroll_y
        assert bottom > 0 and conversation.scroll_y == bottom
        await pilot.press("pageup")
        await pilot.pause()
        assert conversation.scroll_y < bottom
        assert app.focused is app.main.prompt
        up = conversation.scroll_y
        await pilot.press("pageup", "pagedown")
        await pilot.pause()
        assert conversation.scroll_y == up
        await pilot.press("home")  # the prompt is empty: Home is the conversation's
        await pilot.pause()
        assert conversation.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert conversation.scroll_y == conversation.max_scroll_y
        await pilot.press(*"ab", "home")  # with text, Home moves the cursor
        await pilot.pause()
        assert app.main.prompt.cursor_location == (0, 0)
        assert conversation.scroll_y == conversation.max_scroll_y
        await pilot.press("ctrl+home")  # always the conversation's
        await pilot.pause()
        assert conversation.scroll_y == 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert conversation.scroll_y == conversation.max_scroll_y
        assert app.main.prompt.text == "ab"


def test_prompt_placeholder_names_the_keys() -> None:
    assert "Enter sends" in PromptInput().placeholder
