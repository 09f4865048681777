"""The full view (Ctrl+O) shows everything the main view shows and more: a denied call's and a
not-run call's plain-words lines, thinking open, a failed attempt whole; its search reads the text
the lines wrap (a word folded over two lines is found, in any case); resumed history too."""

from __future__ import annotations

import io
from typing import Any

from app.engine.replay import replay_events
from app.tui.app import LatheApp
from app.tui.screens.full_view import FullViewScreen
from tests.tui import full_view_scenes, scenes, tool_scenes
from tests.tui.conftest import make_app
from tools.registry import get_all_base_tools
from widgets.full_view import FullDocument, logical_text

SIZE = (80, 24)


def full_text(document: FullDocument) -> str:
    width = document.content_size.width
    return "\n".join(
        strip.text.rstrip()
        for i in range(len(document.items))
        for strip in document._exact_item(i, width)
    )


def plain(*renderables: Any) -> str:
    from rich.console import Console

    console = Console(width=80, record=True, file=io.StringIO())
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


async def open_view(app: LatheApp, pilot: Any) -> FullViewScreen:
    await pilot.press("ctrl+o")
    for _ in range(5):
        await pilot.pause()
    assert isinstance(app.screen, FullViewScreen)
    return app.screen


async def test_denied_and_not_run_lines_are_in_the_full_view() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, tool_scenes.denied_batch())
        await scenes.settle(app, pilot)
        text = full_text((await open_view(app, pilot)).document)
        assert "Denied by you" in text
        assert text.count("not run: you denied Bash(touch x)") == 2


async def test_search_finds_a_word_folded_over_two_lines_in_any_case() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, full_view_scenes.folded_output())
        await scenes.settle(app, pilot)
        screen = await open_view(app, pilot)
        document = screen.document
        assert "TAILEND" not in full_text(document)  # drawn folded: no line holds it whole
        for term in ("TAILEND", "tailend", "WTAIL", "START", "row 149"):
            assert document.search(term) == 1, term
        assert document.search("row 1") == 1 + 10 + 50  # 1, 10..19, 100..149
        assert document.search("TAILEND") == 1
        [match] = document.matches
        assert len(match.pieces) == 2  # highlighted on both lines
        (first, start_1, end_1), (second, start_2, end_2) = match.pieces
        drawn = [s.text for s in document._exact_item(match.item, document.content_size.width)]
        assert drawn[first][start_1:end_1] == "TAILE" and drawn[second][start_2:end_2] == "ND"
        assert second == first + 1
        # Keys: / types the term, Enter finds it, the status says where.
        await pilot.press("slash", *"tailend", "enter")
        for _ in range(5):
            await pilot.pause()
        assert "Match 1 of 1 for 'tailend'" in str(screen.status.render())


def test_logical_text_joins_folds_directly_and_word_wraps_with_a_space() -> None:
    width = 10
    lines = ["  abcdefgh", "  ijk     ", "one two   ", "three     "]
    text, where = logical_text(lines, width)
    assert text == "  abcdefghijk one two three"
    assert [w[1] for w in where] == [0, 1, 2, 3]


async def test_thinking_is_open_and_a_failed_attempt_whole_in_the_full_view() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        scenes.feed(app, full_view_scenes.thinking_and_failed_attempt())
        await scenes.settle(app, pilot)
        live = app.main.conversation.live_blocks
        shown = plain(*(b.frozen() for b in live if hasattr(b, "frozen")))
        assert "partial line 3" in shown and "Thinking" in shown
        assert "partial line 6" not in shown and "I should read" not in shown  # collapsed there
        text = full_text((await open_view(app, pilot)).document)
        assert "I should read notes.txt first," in text and "then answer briefly." in text
        for i in range(1, 7):
            assert f"partial line {i}" in text
        assert "more line" not in text


async def test_resumed_denied_batch_full_view_and_archive_say_denied() -> None:
    from app.tui.event_router import DENIED_TEXT
    from app.tui.history import ReplayedHistory

    messages, denials = full_view_scenes.denied_batch_messages()
    events = tuple(replay_events(messages, get_all_base_tools(), denials))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(ReplayedHistory(events))
        await scenes.settle(app, pilot)
        text = full_text((await open_view(app, pilot)).document)
        assert "Denied by you" in text
        assert "not run: you denied Bash(rm -rf victim)" in text
        assert DENIED_TEXT in text and "Interrupted by you" not in text
        assert "Thinking (redacted by the API: nothing to show)" in text
