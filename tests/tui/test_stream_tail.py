"""The streamed answer's last paragraph (widgets/stream_tail.py): shown as the whole paragraph would
be, wrapped the same, and handed back to the Markdown parser at a newline and at the end."""

from __future__ import annotations

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
