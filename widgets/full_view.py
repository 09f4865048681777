"""The full view's content: every block of the conversation with nothing collapsed or cut (a tool's
whole output, a long line wrapped), searchable with the matches highlighted.

`FullDocument` is the conversation's archive widget (one widget drawn line by line, items built
and measured only when needed), plus search: a search renders every item once at the current
width and finds the term in what is drawn, read as the text the lines wrap (a word folded over two
lines is one word), so a match is always where it shows, on every line it covers.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.conversation import ArchiveView, Deferred, estimate_text_lines

# How long a search draws before it lets a frame out (a drawn answer costs a few ms).
SEARCH_SLICE_S = 0.03


@runtime_checkable
class HasFullView(Protocol):
    def full_view(self) -> RenderableType: ...


@dataclass
class ShowFullView(Message):
    """A block asks for the full view, opened at it (a tool block's "see it all")."""

    block: Widget

    @property
    def control(self) -> Widget:
        return self.block


def full_source(block: Widget) -> Deferred:
    """How to draw `block` whole, holding only the little it needs (not the widget): blocks the
    conversation archives keep this, so the full view can show them after their widget is gone."""
    from widgets.assistant_block import AssistantBlock
    from widgets.tool_block import ToolBlock

    if isinstance(block, AssistantBlock):
        text = block.markdown_text

        def markdown() -> RenderableType:
            from widgets.frozen_markdown import FrozenMarkdown

            return FrozenMarkdown(text)

        return Deferred(markdown, lambda width: estimate_text_lines(text, width), text)
    if isinstance(block, ToolBlock):
        state = block.state
        # Its head line is the tool block's own drawing: its text is known only once drawn.
        return Deferred(lambda: whole_tool(state), _estimate)
    if isinstance(block, HasFullView):
        # Drawn now, from what the block holds now: the view is a snapshot, and keeps no widget.
        whole = block.full_view()
        return Deferred(lambda: whole, _estimate, source_text(whole))
    frozen = getattr(block, "frozen", None)
    shown: RenderableType = frozen() if callable(frozen) else Text("")
    return Deferred(lambda: shown, _estimate, source_text(shown))


def whole_tool(state: object) -> RenderableType:
    """A tool call with its whole result: the block's head line, then every line of the output
    (wrapped, never cut) or the whole diff, and the plain-words line of a call that did not end
    normally ("Denied by you", "not run: you denied Bash(touch x)"), as the block shows them."""
    from widgets.diff_view import render_diff
    from widgets.tool_block import ToolCallState, render_tool

    assert isinstance(state, ToolCallState)
    drawn = render_tool(state, True)  # its head wraps: a long command is read whole
    # The block's own head (what runs, its state, its time); the rest is redrawn whole here.
    head = drawn.renderables[0] if isinstance(drawn, Group) and drawn.renderables else drawn
    parts: list[RenderableType] = []
    if state.shows_diff:
        parts.append(render_diff(state.diff, max_lines=state.diff.count("\n") + 1))
    else:
        source = (state.result_text or state.output_tail).rstrip("\n")
        if source:
            style = "lathe.failed" if state.status in ("error", "denied") else ""
            parts.append(Text(source, style=style, no_wrap=False, overflow="fold"))
    if state.outcome:
        word = "lathe.failed" if state.status == "denied" else "lathe.stopped"
        said = Text(state.outcome, style=word, no_wrap=False, overflow="fold")
        # Before a denied edit's diff, as the block shows it; after any output it kept.
        parts.insert(0 if state.shows_diff else len(parts), said)
    if not parts:
        return head
    return Group(head, Padding(Group(*parts), (0, 0, 0, 2)))


def smart_case(term: str) -> Callable[[str], str]:
    """Search ignores case unless the term has a capital (as less and vim's smartcase)."""
    return (lambda s: s) if term != term.lower() else str.lower


@dataclass(frozen=True)
class Match:
    item: int
    offset: int  # the line within the item where it starts
    start: int  # cells, on that line
    end: int
    # Every visual line it covers as (line, start cell, end cell): a match wrapping onto the
    # next line is highlighted on both.
    pieces: tuple[tuple[int, int, int], ...] = ()


def fold_same_length(fold: Callable[[str], str], text: str) -> str:
    """`fold(text)` with one character for each (a few capitals lower into two): positions in
    the folded text are positions in the drawn one."""
    folded = fold(text)
    if len(folded) == len(text):
        return folded
    return "".join(c if len(fold(c)) != 1 else fold(c) for c in text)


# The right padding an item may have inside the view (cells): a line ending there is a fold.
FOLD_MARGIN = 3


def logical_text(lines: list[str], width: int) -> tuple[str, list[tuple[int, int, int]]]:
    """An item's drawn lines as the text they wrap: a line that fills the width and goes on on
    the next (a long word folded) joins it directly, any other break is one space (a phrase
    wrapped at a space), each line without the indent its wrap adds. Returns the text and,
    for each line, (where its part starts in the text, the line, the first character kept)."""
    parts: list[str] = []
    where: list[tuple[int, int, int]] = []
    at = 0
    previous = ""
    # Where the item's text ends on the right (its padding is blank): a line reaching it was
    # folded there, when that is the width, less a margin of a few cells.
    edge = max((cell_len(line.rstrip()) for line in lines), default=0)
    folds = edge >= width - FOLD_MARGIN
    for offset, line in enumerate(lines):
        text = line.rstrip()
        if offset == 0:
            skip = 0
        elif folds and cell_len(previous) >= edge:
            # Folded: the next line is the same word, after the indent both lines share.
            indent = len(previous) - len(previous.lstrip(" "))
            skip = min(indent, len(text) - len(text.lstrip(" ")))
        else:
            skip = len(text) - len(text.lstrip())
            if parts and text[skip:]:
                parts.append(" ")
                at += 1
        where.append((at, offset, skip))
        kept = text[skip:]
        parts.append(kept)
        at += len(kept)
        previous = text
    return "".join(parts), where


def _pieces(
    lines: list[str], where: list[tuple[int, int, int]], first: int, last: int
) -> tuple[tuple[int, int, int], ...]:
    """The visual pieces of characters [first, last) of the logical text, in cells per line."""
    out: list[tuple[int, int, int]] = []
    starts = [w[0] for w in where]
    index = max(0, bisect_right(starts, first) - 1)
    while index < len(where) and where[index][0] < last:
        begin, offset, skip = where[index]
        length = len(lines[offset].rstrip()) - skip
        lo, hi = max(first, begin), min(last, begin + length)
        if hi > lo:
            line = lines[offset]
            a, b = skip + lo - begin, skip + hi - begin
            out.append((offset, cell_len(line[:a]), cell_len(line[:b])))
        index += 1
    return tuple(out)


# What rendering drops from a markdown source (markup) and how it breaks lines (any whitespace).
_MARKUP = re.compile(r"[\\*_`~#>|\[\]()]+")
_SPACE = re.compile(r"\s+")


def _normal(text: str) -> str:
    return _SPACE.sub(" ", _MARKUP.sub("", text))


def source_text(item: RenderableType) -> str | None:
    """The text an item draws (or more), as far as it is known without building or drawing it
    (None: unknown). A search skips drawing the items whose text cannot hold the term."""
    if isinstance(item, Padding):
        item = item.renderable
    if isinstance(item, Deferred):
        return item.text
    if isinstance(item, str):
        return item
    if isinstance(item, Text):
        return item.plain
    return None


class FullDocument(ArchiveView):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"full-document--match", "full-document--current"}
    DEFAULT_CSS = """
    FullDocument { height: auto; }
    FullDocument > .full-document--match { background: $warning 35%; }
    FullDocument > .full-document--current {
        background: $foreground;
        color: $background;
        text-style: bold;
    }
    """

    def __init__(self, sources: Iterable[Deferred]) -> None:
        super().__init__()
        self.term = ""
        self.matches: list[Match] = []
        self.current: int | None = None
        self._by_line: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        self._searched_width = 0
        # Each item's lines as plain text at `_plain_width`: a later search needs no drawing.
        self._plain: dict[int, list[str]] = {}
        self._plain_width = 0
        self.searching = False  # a search is going on in steps (the screen runs it)
        self.add(sources)

    def item_line(self, index: int, below: int = 0) -> int:
        """The document line where item `index` starts, after measuring it and `below` lines
        from it on exactly (so the view can scroll there; the items above keep their estimate,
        which is where the view will draw this one)."""
        width = self.content_size.width
        if width <= 0 or not self.items:
            return 0
        self._measure(width)
        index = min(index, len(self.items) - 1)
        shown = 0
        for i in range(index, len(self.items)):
            if shown > below:
                break
            shown += len(self._exact_item(i, width))
        return self._starts[index]

    def match_line(self, match: Match) -> int:
        return self._starts[match.item] + match.offset

    @property
    def total_lines(self) -> int:
        """The document's height as measured so far."""
        return self._total

    def measure_end(self, lines: int) -> None:
        """Measure exactly the last items, `lines` of them (what the end of the view shows)."""
        width = self.content_size.width
        if width <= 0:
            return
        self._measure(width)
        shown = 0
        for i in range(len(self.items) - 1, -1, -1):
            if shown > lines:
                break
            shown += len(self._exact_item(i, width))

    def _exact_item(self, index: int, width: int) -> list[Strip]:
        strips = self._lines.get(index)
        if strips is None:
            strips = self._render_item(index, width)
            self._cache(index, strips)
        if not self._exact[index]:
            self._correct(index, len(strips))
        return strips

    def _item_text(self, index: int, width: int) -> list[str]:
        if width != self._plain_width:
            self._plain.clear()
            self._plain_width = width
        lines = self._plain.get(index)
        if lines is None:
            lines = [strip.text for strip in self._exact_item(index, width)]
            self._plain[index] = lines
        return lines

    # -- search -------------------------------------------------------------------------------
    def search(self, term: str) -> int:
        """Find `term` in every line of the document; returns how many times it is there."""
        for _ in self.search_steps(term):
            pass
        return len(self.matches)

    def search_steps(self, term: str, slice_s: float = SEARCH_SLICE_S) -> Iterator[int]:
        """The search, yielding (the items looked at so far) each time it has drawn for
        `slice_s`, so its caller can let frames out: drawing thousands of answers takes seconds."""
        self.term = term
        self.matches = []
        self._by_line = {}
        self.current = None
        width = self.content_size.width
        self._searched_width = width
        if not term or width <= 0:
            self.refresh()
            return
        fold = smart_case(term)
        needle = fold_same_length(fold, term)
        rough = _normal(needle)
        self._measure(width)
        since = time.monotonic()
        for index in range(len(self.items)):
            if rough.strip() and index not in self._plain:
                known = source_text(self.items[index])
                if known is not None and rough not in _normal(fold(known)):
                    continue  # cannot be there: not drawn
            lines = self._item_text(index, width)
            text, where = logical_text(lines, width)
            folded = fold_same_length(fold, text)
            at = folded.find(needle)
            while at >= 0:
                pieces = _pieces(lines, where, at, at + len(needle))
                if pieces:
                    number = len(self.matches)
                    for offset, start, end in pieces:
                        self._by_line.setdefault((index, offset), []).append((number, start, end))
                    first = pieces[0]
                    self.matches.append(Match(index, first[0], first[1], first[2], pieces))
                at = folded.find(needle, at + max(1, len(needle)))
            if time.monotonic() - since >= slice_s:
                self.refresh()
                yield index + 1
                since = time.monotonic()
        self.refresh()

    def step(self, forward: bool, from_line: int) -> Match | None:
        """The next (or previous) match after the current one, or from `from_line` when none is
        current; wraps around the ends."""
        if not self.matches:
            return None
        if self.current is None:
            lines = [self.match_line(m) for m in self.matches]
            at = bisect_left(lines, from_line)
            index = at % len(self.matches) if forward else (at - 1) % len(self.matches)
        else:
            index = (self.current + (1 if forward else -1)) % len(self.matches)
        self.current = index
        self.refresh()
        return self.matches[index]

    def render_line(self, y: int) -> Strip:
        # Where y falls, as the archive draws it (before drawing corrects any height).
        width = self.content_size.width
        if width > 0:
            self._measure(width)
        index = bisect_right(self._starts, y) - 1
        offset = y - self._starts[index] if index >= 0 else 0
        strip = super().render_line(y)
        if self.term and width != self._searched_width and not self.searching:
            # The width changed: lines wrap elsewhere, so the matches move with them.
            current = self.current
            self.search(self.term)
            if current is not None and self.matches:
                self.current = min(current, len(self.matches) - 1)
        found = self._by_line.get((index, offset))
        if not found:
            return strip
        plain = self.get_component_rich_style("full-document--match", partial=True)
        strong = self.get_component_rich_style("full-document--current", partial=True)
        for number, start, end in found:
            style = strong if number == self.current else plain
            strip = _highlight(strip, start, end, style)
        return strip


def _highlight(strip: Strip, start: int, end: int, style: Style) -> Strip:
    before, middle, after = strip.divide([start, end, strip.cell_length])[:3]
    marked = Strip(list(Segment.apply_style(middle, post_style=style)), middle.cell_length)
    return Strip.join([before, marked, after])


def _estimate(width: int) -> int:
    return 3
