"""The assistant's answer: markdown that grows as deltas arrive."""

from __future__ import annotations

import asyncio

from rich.console import RenderableType
from rich.markdown import Markdown as RichMarkdown
from textual.widgets import Markdown


class AssistantBlock(Markdown):
    """Assistant markdown that grows as deltas arrive.

    Deltas are buffered and flushed by one task, so however fast they come the widget appends at
    most one batch per pass of the loop (the same coalescing as Textual's MarkdownStream, but
    callable from synchronous event handlers).
    """

    DEFAULT_CSS = """
    AssistantBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        background: transparent;
    }
    AssistantBlock > MarkdownBlock:last-child { margin-bottom: 0; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.markdown_text = text
        self._pending: list[str] = []
        self._flusher: asyncio.Task[None] | None = None
        self.finished = False

    def feed(self, fragment: str) -> None:
        if not fragment:
            return
        self.markdown_text += fragment
        self._pending.append(fragment)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._pending:
            chunk = "".join(self._pending)
            self._pending.clear()
            await self.append(chunk)
            # A paragraph updated in place keeps the height it had unless its layout is redone:
            # without this a fast stream could leave the answer cut at its first lines.
            if self.children:
                self.children[-1].refresh(layout=True)
            self.refresh(layout=True)

    def finish(self, full_text: str | None = None) -> None:
        """The message is complete; `full_text`, if given, replaces what the deltas built."""
        self.finished = True
        if full_text is None or full_text == self.markdown_text:
            return
        self._pending.clear()
        self.markdown_text = full_text
        prior = self._flusher

        async def replace() -> None:
            if prior is not None:
                await prior
            await self.update(full_text)

        self._flusher = asyncio.get_running_loop().create_task(replace())

    async def settle(self) -> None:
        """Wait until every fed fragment is on the widget (tests and benchmarks)."""
        while self._flusher is not None and not self._flusher.done():
            await self._flusher

    def frozen(self) -> RenderableType:
        return RichMarkdown(self.markdown_text)
