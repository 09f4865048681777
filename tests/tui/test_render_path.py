"""The path from a text delta to the screen (issue 18): structural checks, no timings.

- deltas are taken once a frame (widgets/assistant_block.py FRAME_S): with the interval at 0 a
  delta is on its widget, and the widget marked for a frame, within a few turns of the loop;
  with it at ten minutes (a fake clock), 1,000 deltas queued between two frames are one update;
- the end of an answer is painted at once: with the screen's update timer slowed (ten
  minutes), the frame with the last words still comes as soon as the loop is free;
- while an answer streams, the Markdown parser only ever sees its last block's source.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import textual.screen
from textual.widget import Widget
from textual.widgets._markdown import MarkdownBlock

from app.engine.events import TextDelta, TurnStarted
from tests.tui.conftest import SIZE, make_app
from widgets import assistant_block
from widgets.assistant_block import AssistantBlock
from widgets.markdown_render import parser_factory
from widgets.stream_tail import StreamTail


async def _turns(n: int = 5) -> None:
    """Let the loop run `n` times round (the flush task, the widget's refresh), no clock."""
    for _ in range(n):
        await asyncio.sleep(0)


def _plain(block: AssistantBlock) -> str:
    return " ".join(
        child._content.plain for child in block.children if isinstance(child, MarkdownBlock)
    )


@pytest.fixture
def slow_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer takes a batch of deltas every ten minutes instead of once a frame."""
    monkeypatch.setattr(assistant_block, "FRAME_S", 600.0)


async def test_a_delta_is_on_its_widget_and_marked_for_the_next_frame_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(assistant_block, "FRAME_S", 0.0)
    refreshed: list[Widget] = []
    original = Widget.refresh

    def recording(self: Widget, *regions: Any, **kw: Any) -> Any:
        refreshed.append(self)
        return original(self, *regions, **kw)

    monkeypatch.setattr(Widget, "refresh", recording)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        app.handle_engine_event(TextDelta("first words ", 0))
        await pilot.pause()
        block = app.router.assistant
        assert block is not None and block._tail is not None
        for i in range(20):
            refreshed.clear()
            app.handle_engine_event(TextDelta(f"more{i} ", 0))
            await _turns()
            assert f"more{i}" in _plain(block)
            # A widget of the answer asked Textual for the next frame (at most one frame away).
            assert any(w is block or w.parent is block for w in refreshed)
            await pilot.pause()


@pytest.fixture
def slow_update_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen's update timer ticks every ten minutes instead of sixty times a second: a
    frame that comes sooner was not waiting for it."""
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 600.0)


async def _frame_after(app: Any, action: Any, turns: int = 200) -> bool:
    """Whether a frame is written within `turns` rounds of the loop after `action()`."""
    frames: list[object] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        if renderable is not None:
            frames.append(renderable)

    app._display = display
    try:
        action()
        for _ in range(turns):
            if frames:
                return True
            await asyncio.sleep(0)
        return bool(frames)
    finally:
        app._display = original


async def test_a_thousand_deltas_between_two_frames_are_one_widget_update(
    slow_frames: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[str] = []
    extend = StreamTail.extend

    def counting(self: StreamTail, fragment: str) -> None:
        batches.append(fragment)
        extend(self, fragment)

    monkeypatch.setattr(StreamTail, "extend", counting)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        app.handle_engine_event(TextDelta("first ", 0))
        await pilot.pause()
        block = app.router.assistant
        assert block is not None and block._tail is not None
        assert "first" in _plain(block)  # the first batch goes at once
        for i in range(1000):
            app.handle_engine_event(TextDelta(f"w{i} ", 0))
        await _turns(50)
        # The frame interval has not passed: nothing of the thousand is taken yet.
        assert batches == [] and "w0" not in _plain(block)
        block.finish()  # the end of the message takes the batch at once
        await block.settle()
        assert batches == ["".join(f"w{i} " for i in range(1000))]
        assert block.markdown_text.endswith("w999 ")
        await pilot.pause()
        assert "w999" in _plain(block)


async def test_the_end_of_an_answer_is_painted_without_waiting_for_the_update_timer(
    slow_update_timer: None, slow_frames: None
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        await _turns(50)  # mounted; the first frame is drawn by the screen's resize, not a tick
        app.handle_engine_event(TurnStarted("go"))
        # The first batch is on its widget at once and goes with the screen's next (now slow)
        # tick, with whatever else changed.
        assert not await _frame_after(app, lambda: app.handle_engine_event(TextDelta("the ", 0)))
        block = app.router.assistant
        assert block is not None and "the" in _plain(block)
        # A delta less than a frame after the last batch waits for the next batch: that is the
        # coalescing (here ten minutes).
        assert not await _frame_after(app, lambda: app.handle_engine_event(TextDelta("ends", 0)))
        assert "ends" not in _plain(block)
        # The end of the message takes it and paints at once.
        assert await _frame_after(app, lambda: block.finish())
        assert "ends" in _plain(block)


async def test_the_end_of_an_answer_whose_last_block_is_not_a_paragraph_paints_at_once(
    slow_update_timer: None,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        await _turns(50)
        app.handle_engine_event(TurnStarted("go"))
        app.handle_engine_event(TextDelta("- one\n- two\n", 0))
        await _turns(50)
        block = app.router.assistant
        assert block is not None and block._tail is None
        assert await _frame_after(app, lambda: block.finish())


async def test_while_streaming_the_parser_only_sees_the_last_block() -> None:
    app = make_app()
    sources: list[str] = []

    def recording_parser() -> Any:
        parser = parser_factory()
        parse = parser.parse

        def recorded(src: str, env: Any = None) -> Any:
            sources.append(src)
            return parse(src, env)

        parser.parse = recorded  # type: ignore[method-assign]
        return parser

    blocks = [f"Paragraph {n}: " + " ".join(f"w{n}x{i}" for i in range(30)) for n in range(6)]
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        app.handle_engine_event(TextDelta("start\n\n", 0))
        await pilot.pause()
        block = app.router.assistant
        assert block is not None
        await block.settle()
        block._parser_factory = recording_parser
        for text in blocks:
            for word in text.split(" "):
                app.handle_engine_event(TextDelta(word + " ", 0))
                await _turns(2)
            app.handle_engine_event(TextDelta("\n\n", 0))
            await block.settle()
            await pilot.pause()
            first = block.children[0]
            assert isinstance(first, MarkdownBlock) and first._content.plain == "start"
        assert sources, "the parser ran"
        for src in sources:
            # Each parse starts where the last block starts (Textual's Markdown.append): the
            # first paragraph, and any block before the last, is never parsed again.
            # By the end the answer has seven blocks; a parse sees the last one and what came.
            assert len([b for b in src.split("\n\n") if b.strip()]) <= 2, src[:80]
        assert any("Paragraph 5" in src for src in sources)


async def test_a_streaming_paragraph_grows_in_steps_so_most_new_lines_need_no_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from widgets.stream_tail import RESERVE_LINES

    passes: list[int] = []
    original = textual.screen.Screen._refresh_layout

    def counting(self: Any, *args: Any, **kw: Any) -> Any:
        passes.append(1)
        return original(self, *args, **kw)

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.handle_engine_event(TurnStarted("go"))
        app.handle_engine_event(TextDelta("w ", 0))
        await pilot.pause()
        block = app.router.assistant
        assert block is not None and block._tail is not None
        tail = block._tail
        monkeypatch.setattr(textual.screen.Screen, "_refresh_layout", counting)
        grown = 0
        for i in range(400):  # ~30 wrapped lines at this width, each delta its own frame
            before = tail._lines
            app.handle_engine_event(TextDelta(f"word{i} ", 0))
            await pilot.pause()
            grown += max(0, tail._lines - before)
            # The widget is never shorter than its text: no line is cut off.
            assert tail._reserved == 0 or tail._lines <= tail._reserved
        monkeypatch.setattr(textual.screen.Screen, "_refresh_layout", original)
        assert grown >= 20
        # A layout pass per RESERVE_LINES new lines, not one per line. Growing line by line
        # costs two passes a line (the layout, the scroll to the end); in steps, about two a step.
        assert len(passes) <= 2 * (grown // RESERVE_LINES) + 3
        assert len(passes) < grown
        block.finish()
        await block.settle()
        await pilot.pause()
        for child in block.children:
            assert child.styles.min_height is None  # the reserve goes with the stream
