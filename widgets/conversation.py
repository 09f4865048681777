"""The scrolling conversation, windowed so long sessions stay fast.

Only the newest `live_limit` blocks are live widgets. Older finished blocks are frozen: their
collapsed rendering is folded into `ArchiveChunk` statics of `chunk_size` blocks each, so a
10,000-message session costs a few hundred cheap widgets and stays scrollable end to end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from rich.console import Group, RenderableType
from rich.padding import Padding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static


@runtime_checkable
class Freezable(Protocol):
    @property
    def finished(self) -> bool: ...

    def frozen(self) -> RenderableType: ...


class ArchiveChunk(Static):
    DEFAULT_CSS = """
    ArchiveChunk { height: auto; }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.items: list[RenderableType] = []

    def add(self, renderable: RenderableType, *, render: bool = True) -> None:
        self.items.append(Padding(renderable, (0, 1, 1, 1)))
        if render:
            self.update(Group(*self.items))

    def render_items(self) -> None:
        self.update(Group(*self.items))


class Conversation(VerticalScroll):
    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 0;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, *, live_limit: int = 40, chunk_size: int = 100, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.live_limit = live_limit
        self.chunk_size = chunk_size
        self._live: deque[Widget] = deque()
        self._chunks: list[ArchiveChunk] = []
        # Blocks added before the widget is mounted (start-up notices) wait here.
        self._early: list[Widget] = []

    def on_mount(self) -> None:
        self.anchor()
        early, self._early = self._early, []
        for block in early:
            self.add_block(block)

    @property
    def live_blocks(self) -> list[Widget]:
        return list(self._live)

    @property
    def archived_count(self) -> int:
        return sum(len(c.items) for c in self._chunks)

    def add_block(self, block: Widget) -> Widget:
        if not self.is_attached:
            self._early.append(block)
            return block
        self.mount(block)
        self._live.append(block)
        self._freeze_overflow()
        return block

    def load_history(self, renderables: Iterable[RenderableType]) -> None:
        """Put already-finished history straight into archive chunks (resuming a session)."""
        touched: set[int] = set()
        for renderable in renderables:
            self._archive(renderable, render=False)
            touched.add(len(self._chunks) - 1)
        for index in touched:
            self._chunks[index].render_items()

    def _freeze_overflow(self) -> None:
        while len(self._live) > self.live_limit:
            oldest = self._live[0]
            # Order matters more than the limit: a still-running block stays live, and so does
            # everything after it.
            if not isinstance(oldest, Freezable) or not oldest.finished:
                return
            self._live.popleft()
            self._archive(oldest.frozen())
            oldest.remove()

    def _archive(self, renderable: RenderableType, *, render: bool = True) -> None:
        if not self._chunks or len(self._chunks[-1].items) >= self.chunk_size:
            chunk = ArchiveChunk()
            if self._live:
                self.mount(chunk, before=self._live[0])
            else:
                self.mount(chunk)
            self._chunks.append(chunk)
        self._chunks[-1].add(renderable, render=render)

    def clear_blocks(self) -> None:
        self._live.clear()
        self._chunks.clear()
        self.remove_children()
