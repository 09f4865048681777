"""The growing last paragraph of a streamed answer, at a cost per delta that does not grow with it.

Textual's `Markdown.append` re-parses the last block whole on every append and its paragraph
re-wraps the whole text on every frame: for a 2,000-word paragraph that is ~20 ms a delta, so a
fast stream falls ever further behind. Here the paragraph's source is cut at points where its
inline markup is closed: what lies before a cut is parsed once and never again; only the short
remainder after the last cut is parsed on each delta. Its wrapped lines are frozen a few at a time
into widgets that are never wrapped again (the paragraph's own widget, `head`, holds the first
lines), because greedy wrapping of a piece that starts and ends at line breaks gives the same lines
as wrapping the whole; the last widget (`live`) shows the last lines.

The cuts are a heuristic (balanced backticks, emphasis runs, brackets): the widget's owner
re-renders the finished paragraph with the real parser, so a wrong guess lasts only while
streaming. Inline tokens become Content through Textual's own MarkdownBlock._token_to_content and
lines break with rich's divide_line, as Content.wrap does (both pinned: textual==8.2.8, rich==15.0.0),
so the pieces look exactly like the paragraph Textual would draw.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich._wrap import divide_line  # the line breaking Textual's Content.wrap itself uses
from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

# Lines kept live below the frozen ones; freezing happens when twice as many have built up.
LIVE_LINES = 12
# The live widget's height grows this many lines at a time: a new line inside the reserved ones
# repaints that widget alone; only a step is a layout pass (and a repaint of the whole screen,
# which scrolls), the costly part of a frame while an answer streams.
RESERVE_LINES = 4
_PAIRS = {"[": "]", "(": ")", "<": ">"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_RUNS = "`*_~"


def stable_cut(src: str) -> int:
    """The last offset before a whitespace at which every inline construct opened in `src[:cut]`
    is closed (0 when there is none): text before it renders the same whatever follows."""
    depth = {k: 0 for k in _PAIRS}
    odd = dict.fromkeys(_RUNS, False)
    cut = 0
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch.isspace():
            if not any(odd.values()) and not any(depth.values()) and i > 0:
                cut = i
        elif ch in _PAIRS:
            depth[ch] += 1
        elif ch in _CLOSERS:
            opener = _CLOSERS[ch]
            depth[opener] = max(0, depth[opener] - 1)
        elif ch in _RUNS:
            # A run (`**`, ``` `` ```) opens or closes as one delimiter.
            end = i
            while end < n and src[end] == ch:
                end += 1
            before = src[i - 1] if i else " "
            after = src[end] if end < n else " "
            spaced = before.isspace() and after.isspace()
            intraword = ch == "_" and before.isalnum() and after.isalnum()
            if not spaced and not intraword:
                odd[ch] = not odd[ch]
            i = end
            continue
        i += 1
    return cut


class LiveParagraph(MarkdownParagraph):
    """The unfrozen last lines of a streaming paragraph (styled as the paragraph it continues)."""


class StreamTail:
    """Drives one streaming paragraph: `extend` with each fragment that has no newline."""

    def __init__(self, block: Markdown, head: MarkdownParagraph, source: str) -> None:
        self.block = block
        self.head = head
        # The block's own parser (link URLs shown: widgets/markdown_render.py), so the streamed
        # lines are the lines the finished paragraph will have.
        factory = block._parser_factory
        self.parser = factory() if factory is not None else MarkdownIt("gfm-like")
        self.chunks: list[MarkdownParagraph] = []  # frozen pieces after `head`
        self.stable = Content("")  # parsed for good, not yet frozen
        self.unstable = source.lstrip()  # source not yet cut off
        self.live: LiveParagraph | None = None
        self._lines = 0  # wrapped lines the widget being extended had at its last update
        self._reserved = 0  # the height the widget being extended was given (0: its own)
        self._last_start = 0  # where its last line starts in its text

    def _inline(self, src: str) -> Content:
        tokens: list[Token] = self.parser.parseInline(src)
        return self.head._token_to_content(tokens[0]) if tokens else Content("")

    def extend(self, fragment: str) -> None:
        self.unstable += fragment
        cut = stable_cut(self.unstable)
        if cut:
            self.stable += self._inline(self.unstable[:cut])
            self.unstable = self.unstable[cut:]
        tail = self.stable + self._inline(self.unstable)
        width = self.head.content_region.width
        lines = self._lines
        if width <= 0:
            lines = 0
        elif self._lines <= 0 or cell_len(tail.plain[self._last_start :]) > width:
            # The last line overflowed (or the layout is new): break lines again. Otherwise the
            # line breaks so far still stand, and breaking ~2,000 characters on every delta
            # would cost more than the delta itself.
            offsets = divide_line(tail.plain, width, fold=True)  # where lines 1, 2, ... start
            if self._freeze(offsets):
                tail = self.stable + self._inline(self.unstable)
                offsets = divide_line(tail.plain, width, fold=True)
            lines = len(offsets) + 1
            self._last_start = offsets[-1] if offsets else 0
        target = self.live if self.live is not None else self.head
        target._content = tail
        # Most deltas do not start a line, and most new lines fit the reserved height: then only
        # this widget is repainted, with no layout pass over the screen.
        relayout = lines == 0 or (lines != self._lines and lines > self._reserved)
        if relayout and lines > 0:
            self._reserved = lines + RESERVE_LINES - 1
            target.styles.min_height = self._reserved
        target.update(tail, layout=relayout)
        self._lines = lines

    def _freeze(self, offsets: list[int]) -> bool:
        """Move whole wrapped lines of `stable` into frozen widgets, keeping LIVE_LINES or more
        lines live. True when it moved some."""
        keep_from = len(offsets) + 1 - LIVE_LINES  # the first line that stays live
        if keep_from < LIVE_LINES:
            return False
        limit = len(self.stable.plain)
        starts = [o for o in offsets[:keep_from] if 0 < o <= limit]
        if not starts:
            return False
        cut = starts[-1]
        piece, self.stable = self.stable[:cut], self.stable[cut:]
        self._lines = -1  # the live widget changes height
        self._unreserve()
        if self.live is None:
            self.head.set_content(piece)
            self.head.add_class("-stream-head")
            self.live = self._paragraph()
            self.block.mount(self.live)
        else:
            chunk = self._paragraph()
            chunk.add_class("-stream-head")
            chunk.set_content(piece)
            self.chunks.append(chunk)
            self.block.mount(chunk, before=self.live)
        return True

    def _paragraph(self) -> LiveParagraph:
        return LiveParagraph(self.block, Token("paragraph_open", "p", 1))

    def _unreserve(self) -> None:
        target = self.live if self.live is not None else self.head
        target.styles.min_height = None
        self._reserved = 0

    def close(self) -> None:
        """Hand the paragraph back to the Markdown widget (it re-renders it exactly)."""
        self._unreserve()
        self.head.remove_class("-stream-head")
        for widget in [*self.chunks, self.live]:
            if widget is not None:
                widget.remove()
        self.chunks.clear()
        self.live = None
