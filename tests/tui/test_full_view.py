"""The full view (Ctrl+O): the whole conversation and every tool's whole output, searchable, and
Esc back to the prompt as it was."""

from __future__ import annotations

from typing import Any

from app.engine.events import AssistantMessage, TurnStarted
from app.execution.events import ToolFinished, ToolQueued, ToolRunning, ToolStarted
from app.tui.app import LatheApp
from app.tui.screens.full_view import FullViewScreen
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app, outcome
from widgets.full_view import FullDocument, ShowFullView


def long_bash(tid: str = "b9", lines: int = 2000, word: str = "output line") -> list[Any]:
    # Within the engine's cap on a result's text (tool_views.MAX_RESULT_CHARS).
    text = "\n".join(f"{word} {i}" for i in range(1, lines + 1))
    return [
        TurnStarted("Build it"),
        ToolQueued(tid, "Bash", {"command": "make"}, "make", False),
        ToolStarted(tid, "Bash", 999.0),
        ToolRunning(tid, "Bash", 999.0),
        ToolFinished(tid, outcome(tid, "Bash", text), 1.5),
        AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "Built."}]}),
    ]


def full_text(document: FullDocument) -> str:
    """Every line of the document as drawn (renders each item once)."""
    width = document.content_size.width
    return "\n".join(
        strip.text.rstrip()
        for i in range(len(document.items))
        for strip in document._exact_item(i, width)
    )


async def open_view(app: LatheApp, pilot: Any) -> FullViewScreen:
    await pilot.press("ctrl+o")
    for _ in range(5):
        await pilot.pause()
    screen = app.screen
    assert isinstance(screen, FullViewScreen)
    return screen


async def test_ctrl_o_shows_every_line_and_esc_keeps_the_prompt() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, long_bash(word="L"))
        await scenes.settle(app, pilot)
        await pilot.press(*"half a thought", "left", "left")
        screen = await open_view(app, pilot)
        text = full_text(screen.document)
        for i in (1, 61, 1000, 1995, 2000):  # the block shows only the tail; here all of it
            assert f"L {i}\n" in text + "\n"
        assert "Built." in text and "> Build it" in text
        assert screen.scroller.scroll_y == screen.scroller.max_scroll_y > 0  # opens at the end
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main
        assert app.main.prompt.text == "half a thought"
        assert app.main.prompt.cursor_location == (0, 12)
        assert app.focused is app.main.prompt


async def test_search_highlights_and_n_and_shift_n_move_through_matches() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, long_bash(lines=300))
        await scenes.settle(app, pilot)
        screen = await open_view(app, pilot)
        await pilot.press("slash", *"line 25", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        document = screen.document
        # "line 25" and "line 250".."line 259": 11 matches, the first after the top shown.
        assert len(document.matches) == 11
        assert document.current is not None
        first = document.matches[document.current]
        y = document.match_line(first)
        assert "output line 25" in document.render_line(y).text
        assert screen.scroller.scroll_y <= y < screen.scroller.scroll_y + 30
        assert "Match" in str(screen.status.render()) and "of 11" in str(screen.status.render())
        start = document.current
        await pilot.press("n")
        assert document.current == (start + 1) % 11
        await pilot.press("N")
        assert document.current == start
        await pilot.press("N")
        assert document.current == (start - 1) % 11
        # The current match is drawn in the "current" style, the others in the "match" style.
        line = document.render_line(document.match_line(document.matches[document.current]))
        strong = document.get_component_rich_style("full-document--current", partial=True)
        assert any(seg.style and seg.style.bgcolor == strong.bgcolor for seg in line)
        await pilot.press("escape")  # no search box open: back to the prompt
        await pilot.pause()
        assert app.screen is app.main


async def test_ctrl_f_opens_the_search_and_esc_closes_it_first() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, long_bash(lines=10))
        await scenes.settle(app, pilot)
        screen = await open_view(app, pilot)
        await pilot.press("ctrl+f")
        assert app.focused is screen.search_box
        await pilot.press(*"nothing like it", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No match" in str(screen.status.render())
        await pilot.press("ctrl+f", "escape")
        assert app.screen is screen and not screen.search_box.has_class("-active")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main


async def test_archived_blocks_are_shown_whole() -> None:
    """A tool block frozen into the archive keeps its whole output for the full view."""
    app = make_app(live_blocks=2)
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, long_bash("old", lines=100))
        for i in range(4):
            app.notice(f"later notice {i}")
        await scenes.settle(app, pilot)
        assert app.main.conversation.archived_count >= 2
        screen = await open_view(app, pilot)
        text = full_text(screen.document)
        assert "output line 1\n" in text and "output line 50\n" in text
        assert "later notice 3" in text


async def test_a_block_can_open_the_full_view_at_itself() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, long_bash("first", lines=200))
        scenes.feed(app, long_bash("second", lines=5))
        await scenes.settle(app, pilot)
        blocks = list(app.main.conversation.query("ToolBlock"))
        blocks[0].post_message(ShowFullView(blocks[0]))
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FullViewScreen)
        top = screen.scroller.scroll_y
        assert top > 0 and top < screen.scroller.max_scroll_y
        shown = screen.document.render_line(int(top)).text
        assert "make" in shown  # the first tool's head line is at the top


async def test_ctrl_o_is_free_in_the_prompt() -> None:
    """Ctrl+O reaches the screen from the prompt (the text area does not take it)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"abc", "ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, FullViewScreen)
        await pilot.press("ctrl+o")  # and closes it again
        await pilot.pause()
        assert app.screen is app.main and app.main.prompt.text == "abc"


async def test_search_draws_only_what_can_match_and_finds_across_markup() -> None:
    """A resumed conversation's items are drawn for a search only when their text can hold the
    term; a term spanning markup (`**bold** and`) is still found where it shows."""
    from app.tui.history import archived_renderables

    events: list[Any] = []
    for i in range(300):
        events.append(TurnStarted(f"question {i}"))
        text = f"Answer {i} is **bold** and `plain`, see [docs](https://e.example/{i})."
        events.append(
            AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": text}]})
        )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.conversation.load_history(archived_renderables(events))
        await pilot.pause()
        screen = await open_view(app, pilot)
        document = screen.document
        assert document.search("Answer 299 is bold and plain") == 1
        assert len(document._plain) <= 3  # one item drawn for the search (plus those on screen)
        assert document.search("e.example/123)") == 1  # the URL shown after the link text
        assert document.search("question 7") == 1 + 10  # 7 and 70..79


async def test_a_search_in_slices_lets_frames_out_and_finds_the_same() -> None:
    from app.tui.history import archived_renderables

    events: list[Any] = []
    for i in range(30):
        events.append(TurnStarted(f"question {i}"))
        text = f"Answer {i}: **done**."
        events.append(
            AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": text}]})
        )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.conversation.load_history(archived_renderables(events))
        await pilot.pause()
        screen = await open_view(app, pilot)
        document = screen.document
        steps = list(document.search_steps("answer", slice_s=0.0))
        assert len(steps) >= 30 and steps == sorted(steps)  # a yield after every drawn item
        sliced = list(document.matches)
        assert document.search("answer") == 30 and document.matches == sliced
