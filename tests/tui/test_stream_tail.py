"""The streamed answer's last paragraph (widgets/stream_tail.py): shown as the whole paragraph would
be, wrapped the same, and handed back to the Markdown parser at a newline and at the end."""

from __future__ import annotations

import random
import re

from textual.widgets._markdown import MarkdownParagraph

from app.engine.events import TextDelta, TurnStarted
from tests.tui import scenes
from tests.tui.conftest import SIZE, make_app
from widgets.assistant_block import AssistantBlock
from widgets.stream_tail import LiveParagraph, stable_cut


def test_stable_cut_only_where_inline_markup_is_closed() -> None:
    assert stable_cut("plain words here") == len("plain words")
    assert stable_cut("one **bold words") == len("one")  # the ** is still open
    assert stable_cut("one **bold** two") == len("one **bold**")
    assert stable_cut("a `code with space") == len("a")
    assert stable_cut("a [link text](x) b") == len("a [link text](x)")
    assert stable_cut("snake_case_name and 2 * 3 more") == len("snake_case_name and 2 * 3")
    assert stable_cut("word") == 0


def _lines(block: AssistantBlock, width: int) -> list[str]:
    """The wrapped lines the block's paragraph widgets show, top to bottom."""
    out: list[str] = []
    for child in block.children:
        if isinstance(child, MarkdownParagraph) and child.display:
            out += [line.plain.rstrip() for line in child._content.wrap(width)]
    return out


def _words(n: int) -> list[str]:
    styles = ["plain", "**bold**", "*em*", "`code`", "[link](https://x.example)"]
    return [f"{styles[i % len(styles)]}{i} " for i in range(n)]


async def test_a_long_streamed_paragraph_wraps_as_the_whole_paragraph_would() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for i in range(40):  # the scrollbar is there from the start: the width never changes
            app.notice(f"earlier {i}")
        await pilot.pause()
        app.handle_engine_event(TurnStarted("go"))
        fragments = _words(600)
        for i, fragment in enumerate(fragments):
            app.handle_engine_event(TextDelta(fragment, 0))
            if i % 7 == 0:
                await pilot.pause()
        block = app.router.assistant
        assert block is not None
        await block.settle()
        await pilot.pause()
        # Still streaming: one live widget shows the paragraph (the parsed one is hidden), and
        # the lines before the last are done: never wrapped again.
        tail = block._tail
        assert tail is not None and len(list(block.query(LiveParagraph))) == 1
        assert not block.children[0].display and len(tail.done) > 20
        width = tail.live.content_region.width
        assert width == tail.width
        streamed = _lines(block, width)
        # What the Line API draws is those lines, row by row.
        drawn = [tail.live.render_line(y).text.rstrip() for y in range(len(streamed))]
        assert drawn == streamed
        reference = MarkdownParagraph(block, block.children[0]._token)
        whole = block._tail._inline("".join(fragments))
        reference._content = whole
        assert streamed == [line.plain.rstrip() for line in whole.wrap(width)]
        assert "600" not in "".join(streamed) and "599" in streamed[-1]

        block.finish()
        await block.settle()
        await pilot.pause()
        # Finished: one paragraph rendered by the Markdown parser, the same lines.
        assert block._tail is None and not list(block.query(LiveParagraph))
        assert [type(c) for c in block.children] == [MarkdownParagraph]
        assert _lines(block, width) == streamed
        assert block.source == "".join(fragments)


async def test_a_newline_hands_the_paragraph_back_to_the_parser() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        for fragment in [
            "First para",
            "graph goes ",
            "on and on.",
            "\n\n- item ",
            "one\n- item two",
        ]:
            app.handle_engine_event(TextDelta(fragment, 0))
            await pilot.pause()
        block = app.router.assistant
        assert block is not None
        block.finish()
        await scenes.settle(app, pilot)
        names = [type(c).__name__ for c in block.children]
        assert names == ["MarkdownParagraph", "MarkdownBulletList"]
        text = re.sub(r"\s+", " ", block.children[0]._content.plain).strip()
        assert text == "First paragraph goes on and on."


def test_the_cut_of_text_without_markup_is_the_cut_the_scan_finds() -> None:
    from widgets.stream_tail import scan_cut

    rng = random.Random(18)
    alphabet = "ab \t\n\u00a0\x1cx."
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert stable_cut(text) == scan_cut(text), repr(text)
    assert stable_cut("w1 w2 w3 ") == len("w1 w2 w3")


def test_a_fast_stream_reserves_more_lines_a_step_than_a_slow_one() -> None:
    from widgets.stream_tail import MAX_RESERVE_LINES, RATE_AFTER_S, RESERVE_LINES, StreamTail

    now = [0.0]
    tail = StreamTail.__new__(StreamTail)  # only the reserve's arithmetic, no widgets
    tail._clock, tail._started, tail._base_lines = (lambda: now[0]), 0.0, 0
    now[0] = RATE_AFTER_S / 2
    assert tail._ahead(40) == RESERVE_LINES  # no rate yet: the first steps stay small
    now[0] = 10.0
    assert tail._ahead(20) == RESERVE_LINES  # 2 lines a second
    now[0] = 2.0
    assert tail._ahead(100) == 13  # 50 lines a second: 12.5 in a quarter second
    now[0] = 0.1
    assert tail._ahead(100) == MAX_RESERVE_LINES  # a burst: 1,000 lines a second
    tail._base_lines = 98  # the paragraph had 98 lines when it started streaming
    now[0] = 1.0
    assert tail._ahead(130) == 2 * RESERVE_LINES  # 32 new lines in a second, not 130


async def test_a_theme_change_redraws_the_streaming_lines_in_its_colours() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        for fragment in _words(40):
            app.handle_engine_event(TextDelta(fragment, 0))
        block = app.router.assistant
        assert block is not None
        await block.settle()
        await pilot.pause()
        tail = block._tail
        assert tail is not None
        before = tail.live.render_line(0)
        app.theme = "lathe-light"
        await pilot.pause()
        after = tail.live.render_line(0)
        assert after.text == before.text
        assert [s.style for s in after] != [s.style for s in before]
