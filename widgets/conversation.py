"""The scrolling conversation, windowed so long sessions stay fast.

Only the newest `live_limit` blocks are live widgets. Older finished blocks are frozen: their
collapsed rendering goes into one `ArchiveView` above the live blocks, so a 10,000-message
session costs a few dozen widgets and stays scrollable end to end.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class Deferred:
    """A renderable built only when it is first drawn, with a cheap height estimate meanwhile.

    A resumed 10,000-message session becomes thousands of these: building and measuring every
    one up front (markdown parsing, wrapping) would cost seconds before the first frame.
    """

    def __init__(
        self,
        build: Callable[[], RenderableType],
        estimate: Callable[[int], int],
        text: str | None = None,
        full: Deferred | None = None,
    ) -> None:
        self._build = build
        self._built: RenderableType | None = None
        self.estimate_lines = estimate
        # All the text it will show (or more), when known without building it: the full view's
        # search skips building what cannot hold the term.
        self.text = text
        # What the full view (Ctrl+O) shows instead, when it shows more (thinking opened, a
        # tool's whole output); None: the same.
        self.full = full

    @property
    def renderable(self) -> RenderableType:
        if self._built is None:
            self._built = self._build()
        return self._built

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.renderable


def estimate_text_lines(text: str, width: int) -> int:
    """Lines `text` takes when wrapped at `width` (ignoring word boundaries: an estimate)."""
    width = max(1, width)
    return sum(max(1, -(-len(line) // width)) for line in text.split("\n"))


@runtime_checkable
class Freezable(Protocol):
    @property
    def finished(self) -> bool: ...

    def frozen(self) -> RenderableType: ...


class ArchiveView(Widget):
    """Every frozen block of the conversation in ONE widget, drawn line by line.

    The layout cost of a container grows with its number of children, so the archive must not be
    many widgets. Heights are measured once per item and width (a prefix sum maps a screen line to
    its item); lines are rendered only for what is on screen, through a small cache. Appending an
    item re-measures that item only.
    """

    DEFAULT_CSS = """
    ArchiveView { height: auto; }
    """
    CACHE_ITEMS = 256

    def __init__(self) -> None:
        super().__init__()
        self.items: list[RenderableType] = []
        # What each item's height is based on: a Deferred's estimate until it is first drawn.
        self._deferred: list[Deferred | None] = []
        self._width = 0
        self._heights: list[int] = []
        self._exact: list[bool] = []
        self._starts: list[int] = []  # first line of each measured item
        self._total = 0
        self._lines: OrderedDict[int, list[Strip]] = OrderedDict()

    def add(self, renderables: Iterable[RenderableType]) -> None:
        for r in renderables:
            self.items.append(Padding(r, (0, 1, 1, 1)))
            self._deferred.append(r if isinstance(r, Deferred) else None)
        self.refresh(layout=True)

    def clear(self) -> None:
        self.items.clear()
        self._deferred.clear()
        self._reset()
        self.refresh(layout=True)

    def restyle(self) -> None:
        """The theme changed: lines rendered in the old colours are drawn again."""
        self._lines.clear()
        self.refresh()

    def _reset(self) -> None:
        self._heights.clear()
        self._exact.clear()
        self._starts.clear()
        self._total = 0
        self._lines.clear()

    def _render_item(self, index: int, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=width, height=None)
        # On the widget's own colours: a segment without a background would show the
        # terminal's default (dark text on a dark terminal under a light theme).
        lines = console.render_lines(
            self.items[index], options, style=self.rich_style, pad=True, new_lines=False
        )
        return [Strip(line, width) for line in lines]

    def _measure(self, width: int) -> None:
        if width != self._width:
            self._width = width
            self._reset()
        for index in range(len(self._starts), len(self.items)):
            deferred = self._deferred[index]
            if deferred is not None:
                # Padding adds a column each side and a blank line below.
                height, exact = deferred.estimate_lines(max(1, width - 2)) + 1, False
            else:
                strips = self._render_item(index, width)
                self._cache(index, strips)
                height, exact = len(strips), True
            self._starts.append(self._total)
            self._heights.append(height)
            self._exact.append(exact)
            self._total += height

    def _correct(self, index: int, height: int) -> None:
        """An estimated item was drawn: use its real height from now on."""
        self._exact[index] = True
        delta = height - self._heights[index]
        if not delta:
            return
        self._heights[index] = height
        for later in range(index + 1, len(self._starts)):
            self._starts[later] += delta
        self._total += delta
        self.refresh(layout=True)

    def _cache(self, index: int, strips: list[Strip]) -> None:
        self._lines[index] = strips
        self._lines.move_to_end(index)
        while len(self._lines) > self.CACHE_ITEMS:
            self._lines.popitem(last=False)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._measure(width)
        return self._total

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        if width <= 0:
            return Strip.blank(0)
        self._measure(width)
        if y < 0 or y >= self._total:
            return Strip.blank(width)
        index = bisect_right(self._starts, y) - 1
        strips = self._lines.get(index)
        if strips is None:
            strips = self._render_item(index, width)
            if not self._exact[index]:
                self._correct(index, len(strips))
        self._cache(index, strips)
        offset = y - self._starts[index]
        return strips[offset] if offset < len(strips) else Strip.blank(width)


class Conversation(VerticalScroll):
    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 0;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, live_limit: int = 40, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live_limit = live_limit
        self._live: deque[Widget] = deque()
        self.archive = ArchiveView()
        # Blocks added before the widget is mounted (start-up notices) wait here.
        self._early: list[Widget] = []
        self._headers = 0  # archive items above the history (the welcome line), not blocks
        # What the full view (Ctrl+O) shows of each archived item: the whole block, not its
        # collapsed frozen form (widgets/full_view.py).
        self.full_sources: list[Deferred] = []

    def compose(self) -> ComposeResult:
        yield self.archive

    def on_mount(self) -> None:
        self.anchor()
        if self.children and self.children[0] is not self.archive:
            # Blocks mounted while the conversation was still mounting came before its composed
            # archive; the archive (the welcome line, resumed history) belongs above them.
            self.move_child(self.archive, before=0)
        early, self._early = self._early, []
        for block in early:
            self.add_block(block)

    @property
    def live_blocks(self) -> list[Widget]:
        return list(self._live)

    @property
    def archived_count(self) -> int:
        return len(self.archive.items) - self._headers

    def add_header(self, renderable: RenderableType) -> None:
        """A line above everything (the welcome line): first in the archive, not a block."""
        self.archive.add([renderable])
        self._headers += 1

    def add_block(self, block: Widget) -> Widget:
        if not self.is_attached:
            self._early.append(block)
            return block
        self.mount(block)
        self._live.append(block)
        self._freeze_overflow()
        return block

    def replace_blocks(self, old: list[Widget], new: Widget) -> Widget:
        """Put `new` where the first of `old` is and remove them all (a retry taking back the
        failed attempt's blocks). Blocks already archived stay as they were."""
        live = [b for b in old if b in self._live]
        if not live or not self.is_attached:
            return self.add_block(new)
        position = list(self._live).index(live[0])
        self.mount(new, before=live[0])
        self._live.insert(position, new)
        for block in live:
            self._live.remove(block)
            block.remove()
        return new

    def remove_block(self, block: Widget) -> None:
        """Take a live block off the screen (a cut-off answer the kept response lacks)."""
        if block in self._live:
            self._live.remove(block)
            block.remove()

    def load_history(self, renderables: Iterable[RenderableType]) -> None:
        """Put already-finished history straight into the archive (resuming a session)."""
        items = list(renderables)
        self.archive.add(items)
        self.full_sources.extend(_shown(item) for item in items)

    def _freeze_overflow(self) -> None:
        while len(self._live) > self.live_limit:
            oldest = self._live[0]
            # Order matters more than the limit: a still-running block stays live, and so does
            # everything after it.
            if not isinstance(oldest, Freezable) or not oldest.finished:
                return
            self._live.popleft()
            from widgets.full_view import full_source

            self.full_sources.append(full_source(oldest))
            self.archive.add([oldest.frozen()])
            oldest.remove()

    def clear_blocks(self) -> None:
        self._headers = 0
        self._live.clear()
        self.archive.clear()
        self.full_sources.clear()
        for child in list(self.children):
            if child is not self.archive:
                child.remove()


def _shown(item: RenderableType) -> Deferred:
    """A replayed item as the full view shows it: what the archive shows."""
    if isinstance(item, Deferred):
        return item.full or item
    return Deferred(lambda: item, lambda width: 3)
