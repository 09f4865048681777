"""The assistant's answer: markdown that grows as deltas arrive (parsed and laid out as
widgets/markdown_render.py says: link URLs shown, code lines wrapped, tables fit)."""

from __future__ import annotations

import asyncio

from rich.console import RenderableType
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

from widgets.frozen_markdown import FrozenMarkdown
from widgets.markdown_render import MARKDOWN_LAYOUT_CSS, parser_factory
from widgets.paint_now import paint_now
from widgets.stacked_table import FittingMarkdownTable
from widgets.stream_tail import StreamTail

# Deltas are taken at most once a frame (60 Hz): however fast they come, the widget does one update
# a frame, and the loop never falls behind the socket doing one per delta.
FRAME_S = 1 / 60
BURST_CHARS = 2_000
BURST_S = 0.1


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class AssistantBlock(Markdown):
    """Assistant markdown that grows as deltas arrive.

    Deltas are buffered and flushed by one task, so however fast they come the widget appends at
    most one batch per pass of the loop (the same coalescing as Textual's MarkdownStream, but
    callable from synchronous event handlers). While the answer's last block is a paragraph and
    the deltas add no line, a StreamTail grows it at a cost that does not grow with its length;
    the next newline, or the end of the message, hands the text to the Markdown parser again.
    """

    DEFAULT_CSS = (
        """
    AssistantBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        background: transparent;
    }
    AssistantBlock > MarkdownBlock:last-child { margin-bottom: 0; }
    """
        + MARKDOWN_LAYOUT_CSS
    )

    # A table too wide for the pane is stacked, "Column: value" rows (widgets/stacked_table.py).
    BLOCKS = {**Markdown.BLOCKS, "table_open": FittingMarkdownTable}

    def __init__(self, text: str = "") -> None:
        super().__init__(text, parser_factory=parser_factory)
        self._parts = [text]
        self._pending: list[str] = []
        self._flusher: asyncio.Task[None] | None = None
        self._next_flush = 0.0  # loop time before which a batch waits (one frame after the last)
        self._waiter: asyncio.Future[None] | None = None
        self.finished = False
        self._tail: StreamTail | None = None
        self._backlog = ""  # text shown by the tail, not yet given to the Markdown parser

    @property
    def markdown_text(self) -> str:
        """Everything the deltas said (or the message's full text)."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @markdown_text.setter
    def markdown_text(self, text: str) -> None:
        self._parts = [text]

    def feed(self, fragment: str) -> None:
        if not fragment:
            return
        self._parts.append(fragment)  # joined when read: `+=` on an attribute copies it all
        self._pending.append(fragment)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            wait = self._next_flush - loop.time()
            if wait > 0 and not self.finished:
                # A frame went out less than a frame ago: what comes meanwhile joins this batch.
                await self._pause(wait)
                if not self._pending:
                    break  # `finish` took the batch
            chunk = "".join(self._pending)
            self._pending.clear()
            if self._tail is not None and "\n" not in chunk:
                self._backlog += chunk
                self._tail.extend(chunk)
            else:
                await self._hand_back(chunk)
                self._start_tail()
            # A batch of more than a screenful means the stream outruns the screen: the next
            # waits longer, and the loop reads the socket instead of painting frames no one can
            # read (each a layout and a repaint of the whole screen as the answer scrolls).
            self._next_flush = loop.time() + (FRAME_S if len(chunk) < BURST_CHARS else BURST_S)
        if self.finished:
            # No delta will follow: the frame with the last words goes out now, not at the
            # next tick of the screen's update timer (widgets/paint_now.py). Batches before it
            # go with the screen's own frames, with whatever else changed.
            paint_now(self)
        if self.finished and self._tail is not None:
            # The tail shows the last words: let that frame out first, then render the
            # paragraph exactly (a full parse, off the path to the last word on screen).
            painted = asyncio.Event()
            self.call_after_refresh(painted.set)
            await painted.wait()
            await self._hand_back("")

    def _take_last_batch(self) -> None:
        """The last words onto the tail at once, when the flush task is only waiting out its
        frame interval: a frame the screen paints before that task runs again (its timer's, due
        while the stream's last events were read) then shows them instead of what it had."""
        if self._waiter is None or self._tail is None or not self._pending:
            return
        chunk = "".join(self._pending)
        if "\n" in chunk:
            return  # the parser's part: the flush task hands it over
        self._pending.clear()
        self._backlog += chunk
        self._tail.extend(chunk)
        paint_now(self)

    async def _pause(self, delay: float) -> None:
        """Wait `delay` s, or less if the message ends meanwhile (`finish` wakes it)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        handle = loop.call_later(delay, _wake, waiter)
        self._waiter = waiter
        try:
            await waiter
        finally:
            handle.cancel()
            self._waiter = None

    async def _hand_back(self, chunk: str) -> None:
        """Give the Markdown parser what the tail showed plus `chunk`."""
        if self._tail is not None:
            await self._tail.close()
            self._tail = None
        text, self._backlog = self._backlog + chunk, ""
        if not text:
            return
        await self.append(text)
        # A paragraph updated in place keeps the height it had unless its layout is redone:
        # without this a fast stream could leave the answer cut at its first lines.
        if self.children:
            self.children[-1].refresh(layout=True)
        self.refresh(layout=True)

    def _start_tail(self) -> None:
        if self.finished or not self.children or self.source.endswith("\n"):
            return
        last = self.children[-1]
        if type(last) is MarkdownParagraph:
            lines = self.source.splitlines(keepends=True)[self._last_parsed_line :]
            self._tail = StreamTail(self, last, "".join(lines))

    def finish(self, full_text: str | None = None) -> None:
        """The message is complete; `full_text`, if given, replaces what the deltas built."""
        self.finished = True
        if full_text is None or full_text == self.markdown_text:
            self._take_last_batch()
        if self._waiter is not None:
            _wake(self._waiter)  # the last batch goes now, not at the end of its frame interval
        if full_text is None or full_text == self.markdown_text:
            if self._flusher is None or self._flusher.done():
                if self._tail is not None:
                    self._flusher = asyncio.get_running_loop().create_task(self._flush())
                else:
                    paint_now(self)
            return
        self._pending.clear()
        self.markdown_text = full_text
        prior = self._flusher

        async def replace() -> None:
            if prior is not None:
                await prior
            if self._tail is not None:
                await self._tail.close()
                self._tail = None
            self._backlog = ""
            await self.update(full_text)

        self._flusher = asyncio.get_running_loop().create_task(replace())

    async def settle(self) -> None:
        """Wait until every fed fragment is on the widget (tests and benchmarks)."""
        while self._flusher is not None and not self._flusher.done():
            await self._flusher

    def frozen(self) -> RenderableType:
        return FrozenMarkdown(self.markdown_text)
