"""The non-tool blocks of the conversation: the user's prompt, streaming assistant markdown, and
notices (info, warning, error, retry, interrupt)."""

from __future__ import annotations

import asyncio
from typing import Literal

from rich.console import RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.widgets import Markdown, Static

NoticeLevel = Literal["info", "warning", "error", "retry", "interrupt"]
NOTICE_STYLES: dict[str, tuple[str, str]] = {
    "info": ("ℹ", "dim"),
    "warning": ("⚠", "yellow"),
    "error": ("✗", "bold red"),
    "retry": ("↻", "yellow"),
    "interrupt": ("■", "bold yellow"),
}


class UserBlock(Static):
    DEFAULT_CSS = """
    UserBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $accent;
        background: $boost;
    }
    """

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(self._renderable())

    def _renderable(self) -> Text:
        return Text("> " + self.text)

    def frozen(self) -> RenderableType:
        return Text("> " + self.text, style="bold")

    finished = True


class NoticeBlock(Static):
    DEFAULT_CSS = """
    NoticeBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    NoticeBlock.-error { border-left: thick $error; }
    NoticeBlock.-warning, NoticeBlock.-retry, NoticeBlock.-interrupt { border-left: thick $warning; }
    """

    def __init__(self, text: str, level: NoticeLevel = "info") -> None:
        self.text = text
        self.level = level
        super().__init__(self.frozen(), classes=f"-{level}")

    def frozen(self) -> RenderableType:
        icon, style = NOTICE_STYLES[self.level]
        return Text(f"{icon} {self.text}", style=style)

    finished = True


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
