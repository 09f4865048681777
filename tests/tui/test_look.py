"""The look: thinking blocks, the busy line, the welcome line, and theme colours that follow a
theme change (Pilot tests on the real App, fed the engine's real event types)."""

from __future__ import annotations

from textual.color import Color

from app.engine.events import (
    AssistantMessage,
    ErrorOccurred,
    Interrupted,
    Notice,
    RedactedThinking,
    RequestStarted,
    StreamUsage,
    TextDelta,
    ThinkingDelta,
    TurnEnded,
    TurnStarted,
)
from app.tui.app import LatheApp
from app.tui.history import ReplayedHistory
from tests.tui import scenes
from tests.tui.conftest import FixedClock, make_app
from widgets.busy_line import SPINNER, BusyLine
from widgets.message_blocks import NoticeBlock
from widgets.thinking_block import ThinkingBlock

SIZE = (120, 40)
THOUGHT = "The user wants the notes.\nI should read notes.txt first,\nthen answer briefly."


def thinking_turn() -> list[object]:
    events: list[object] = [TurnStarted("what is in my notes?"), RequestStarted(1, "m")]
    events += [ThinkingDelta(line + "\n", 0) for line in THOUGHT.split("\n")]
    events += [TextDelta("You need milk.", 1)]
    return events


def thinking(app: LatheApp) -> list[ThinkingBlock]:
    return list(app.main.conversation.query(ThinkingBlock))


def busy_text(app: LatheApp) -> str:
    return app.main.busy.render().plain


async def test_thinking_is_one_collapsed_line_that_enter_and_click_open() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, thinking_turn())
        await scenes.settle(app, pilot)
        [block] = thinking(app)
        assert block.finished and block.text.strip() == THOUGHT
        assert block.size.height == 1
        assert block.render().plain == "∴ Thinking…  3 lines · Enter to show"
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert block.expanded and block.size.height == 4
        shown = block.render().plain
        assert "I should read notes.txt first," in shown and "then answer briefly." in shown
        app.main.prompt.focus()
        await pilot.click(ThinkingBlock)
        await pilot.pause()
        assert not block.expanded and block.size.height == 1
        assert app.focused is app.main.prompt  # a click does not take the focus from the prompt
        await pilot.click(ThinkingBlock)
        await pilot.pause()
        assert block.expanded


async def test_thinking_streams_into_one_block_per_content_block() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(
            app,
            [
                TurnStarted("go"),
                RequestStarted(1, "m"),
                ThinkingDelta("first ", 0),
                ThinkingDelta("thought", 0),
            ],
        )
        await pilot.pause()
        [live] = thinking(app)
        assert not live.finished and live.text == "first thought"
        assert live.render().plain == "∴ Thinking…"  # no "Enter to show" while it streams
        scenes.feed(app, [ThinkingDelta("second", 2), TextDelta("done", 3)])
        await pilot.pause()
        assert [b.text for b in thinking(app)] == ["first thought", "second"]
        assert all(b.finished for b in thinking(app))


async def test_redacted_thinking_says_so_and_does_not_open() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, [TurnStarted("go"), RequestStarted(1, "m"), RedactedThinking(0)])
        await pilot.pause()
        [block] = thinking(app)
        assert block.redacted and "redacted" in block.render().plain
        block.focus()
        await pilot.press("enter")
        assert not block.expanded


async def test_a_message_that_arrives_whole_shows_its_thinking_once() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Plan it.", "signature": "s"},
            {"type": "redacted_thinking", "data": "d"},
            {"type": "text", "text": "Planned."},
        ],
    }
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        # Not streamed (a resumed conversation's tail): the message's thinking is shown.
        app.handle_engine_event(ReplayedHistory((TurnStarted("plan"), AssistantMessage(message))))
        await scenes.settle(app, pilot)
        assert [(b.text, b.redacted) for b in thinking(app)] == [("Plan it.", False), ("", True)]
        assert not app.main.busy.busy  # history is not a turn at work
        # Streamed: the deltas made the block, the whole message adds no second one.
        scenes.feed(app, [RequestStarted(2, "m"), ThinkingDelta("Again.", 0)])
        app.handle_engine_event(AssistantMessage(message))
        await scenes.settle(app, pilot)
        assert [b.text for b in thinking(app)] == ["Plan it.", "", "Again."]


async def test_busy_line_runs_from_the_prompt_to_the_end_of_the_turn() -> None:
    clock = FixedClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        busy = app.main.busy
        assert not busy.busy and busy.display is False
        scenes.feed(app, [TurnStarted("go"), RequestStarted(1, "m")])
        await pilot.pause()
        assert busy.display and busy_text(app) == f"{SPINNER[0]} Thinking… 0s · Esc to interrupt"
        scenes.feed(app, [StreamUsage(8400, 1)])
        clock.now += 12.34
        assert busy_text(app) == (
            f"{SPINNER[3]} Thinking… 12s · ↑ 8.4k ↓ 1 token · Esc to interrupt"
        )
        scenes.feed(app, [TextDelta("hi", 0), StreamUsage(8400, 312)])
        clock.now += 60
        assert busy_text(app).endswith("Writing… 1m 12s · ↑ 8.4k ↓ 312 tokens · Esc to interrupt")
        scenes.feed(app, [TurnEnded("end_turn", "hi", False, "success", 1)])
        await pilot.pause()
        assert not busy.busy and busy.display is False and busy_text(app) == ""
        # The next turn starts from zero.
        clock.now += 100
        scenes.feed(app, [TurnStarted("again"), RequestStarted(2, "m")])
        assert busy_text(app) == f"{SPINNER[0]} Thinking… 0s · Esc to interrupt"


async def test_busy_line_stops_on_interrupt_and_on_error() -> None:
    for end in (Interrupted(False), ErrorOccurred("boom")):
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            scenes.feed(app, [TurnStarted("go"), RequestStarted(1, "m"), end])
            await pilot.pause()
            assert not app.main.busy.busy and app.main.busy.display is False, end


async def test_busy_line_ticker_repaints_and_stops_with_the_line() -> None:
    app = make_app(busy_tick_s=0.01)
    async with app.run_test(size=SIZE) as pilot:
        busy = app.main.busy
        busy.start("Thinking…")
        assert busy._ticker is not None
        busy.stop()
        assert busy._ticker is None
        await pilot.pause()


async def test_welcome_line_names_model_folder_and_keys() -> None:
    app = make_app(keymap={"interrupt_esc": "ctrl+g"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        line = app.main.welcome.line(118).plain
        assert line.startswith("Welcome to lathe · claude-sonnet-4-5 · ~/work/demo")
        assert "/ commands · Shift+Tab mode · Ctrl+G interrupt · Ctrl+Q quit" in line
        # 80 columns (less the padding): the first three keys stay, with shorter names and the
        # folder's last part (black-box round 3, F9).
        narrow = app.main.welcome.line(78).plain
        assert (
            narrow == "lathe · claude-sonnet-4-5 · …/demo · / commands · ⇧Tab mode · ^G interrupt"
        )
        # 60 columns: the keys wrap to a second line, the folder whole.
        small = app.main.welcome.line(58).plain.split("\n")
        assert small == [
            "lathe · claude-sonnet-4-5 · ~/work/demo",
            "/ commands · Shift+Tab mode · Ctrl+G interrupt",
        ]
        tiny = app.main.welcome.line(40).plain.split("\n")
        assert all(len(line) <= 40 for line in tiny) and len(tiny) == 2
        assert tiny[0].startswith("lathe · claude-sonnet-4-5") and "⇧Tab mode" in tiny[1]
        app.main.show_model("claude-opus-4-1")
        assert "claude-opus-4-1" in app.main.welcome.line(118).plain


async def test_a_theme_change_repaints_what_was_already_drawn() -> None:
    app = make_app(theme="lathe-dark")
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(Notice("careful", "warning"))
        await pilot.pause()
        [notice] = app.main.conversation.query(NoticeBlock)

        def icon_colour() -> Color | None:
            # What is drawn, after the repaint: the segment with the icon.
            [icon] = [seg for seg in notice.render_line(0) if "⚠" in seg.text]
            colour = icon.style.color if icon.style else None
            return None if colour is None else Color.from_rich_color(colour)

        dark = Color.parse(app.get_css_variables()["warning"])
        assert icon_colour() == dark
        app.theme = "lathe-light"
        await pilot.pause()
        light = Color.parse(app.get_css_variables()["warning"])
        assert light != dark and icon_colour() == light


async def test_busy_widget_has_no_clock_of_its_own() -> None:
    clock = FixedClock()
    line = BusyLine(clock=clock, tick_s=None)
    line.start("Thinking…")
    first = line.render().plain
    assert line.render().plain == first  # same clock, same frame, same text
    clock.now += 0.25
    assert line.render().plain != first
