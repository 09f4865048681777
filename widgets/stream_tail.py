"""The growing last paragraph of a streamed answer, at a cost per delta that does not grow with it.

Textual's `Markdown.append` re-parses the last block whole on every append and its paragraph
re-wraps the whole text on every frame: for a 2,000-word paragraph that is ~20 ms a delta, so a
fast stream falls ever further behind. Here the paragraph's source is cut at points where its
inline markup is closed: what lies before a cut is parsed once and never again; only the short
remainder after the last cut is parsed on each delta. The wrapped lines before the one the stable
text ends in are done: greedy wrapping of text that starts at a line break gives the same lines as
wrapping the whole, so only the last line or two are wrapped again. One widget (`LiveParagraph`)
shows the lines through Textual's Line API: each line becomes a Strip once, a delta repaints only
the lines it changed, and the widget grows RESERVE_LINES at a time, so most new lines need no
layout pass (a layout is a repaint of the whole screen, the costly part of a frame).

The cuts are a heuristic (balanced backticks, emphasis runs, brackets): the widget's owner
re-renders the finished paragraph with the real parser, so a wrong guess lasts only while
streaming. Inline tokens become Content through Textual's own MarkdownBlock._token_to_content,
lines break with rich's divide_line, as Content.wrap does, and each line is drawn by Textual's
Visual.to_strips (all pinned: textual==8.2.8, rich==15.0.0), so the lines look exactly like the
paragraph Textual would draw.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich._wrap import divide_line  # the line breaking Textual's Content.wrap itself uses
from textual.await_remove import AwaitRemove
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

# The live widget's height grows at least this many lines at a time: a new line inside the
# reserved ones repaints that line alone; only a step is a layout pass (and a repaint of the whole
# screen, which scrolls), the costly part of a frame while an answer streams. A fast stream gets
# the lines it brings in RESERVE_S at its rate so far (measured once RATE_AFTER_S have passed),
# up to MAX_RESERVE_LINES: the blank lines under the text fill within a quarter of a second, and
# 1,000 words a second cost 4 steps a second, not 12. A stream of a few lines a second (the API's
# usual pace) keeps steps of RESERVE_LINES.
RESERVE_LINES = 4
MAX_RESERVE_LINES = 24
RESERVE_S = 0.25
RATE_AFTER_S = 0.05
_PAIRS = {"[": "]", "(": ")", "<": ">"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_RUNS = "`*_~"
# What `stable_cut` looks at besides whitespace.
_MARKUP = re.compile(r"[\\\[\]()<>`*_~]")
_LAST_SPACE = re.compile(r"(?<=.)\s(?=\S*\Z)", re.DOTALL)


def stable_cut(src: str) -> int:
    """The last offset before a whitespace at which every inline construct opened in `src[:cut]`
    is closed (0 when there is none): text before it renders the same whatever follows."""
    if _MARKUP.search(src) is None:
        # Nothing opens a construct: the last whitespace is the cut (a batch of a fast stream
        # is thousands of characters; the scan is a Python loop over each).
        last = _LAST_SPACE.search(src)
        return last.start() if last is not None else 0
    return scan_cut(src)


def scan_cut(src: str) -> int:
    """`stable_cut`, character by character."""
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
    """The streaming paragraph, drawn line by line (Textual's Line API): each wrapped line is
    rendered once into a Strip and kept; a delta repaints only the lines it changed, and a new
    line inside the reserved height repaints nothing else. Styled as the paragraph it shows (a
    MarkdownParagraph to the CSS), and wrapped exactly as Textual wraps one (`StreamTail`)."""

    def __init__(self, block: Markdown, tail: StreamTail) -> None:
        self._pieces: list[Content] = []  # the wrapped lines, trailing spaces kept
        super().__init__(block, Token("paragraph_open", "p", 1))
        self._tail = tail
        self._strips: dict[int, Strip] = {}
        self._strip_width = -1

    @property  # type: ignore[override]
    def _content(self) -> Content:
        """All the text shown (built when asked: tests, benchmarks, the hand-back)."""
        return Content("").join(self._pieces)

    @_content.setter
    def _content(self, content: Content) -> None:
        self._pieces = [content] if content else []

    def show(self, pieces: list[Content], first_changed: int, layout: bool) -> None:
        """Show `pieces`; lines before `first_changed` are the lines already shown."""
        old = len(self._pieces)
        self._pieces = pieces
        for y in range(first_changed, max(old, len(pieces))):
            self._strips.pop(y, None)
        if layout or not self.is_mounted:
            self.refresh(layout=layout)
            return
        rows = max(old, len(pieces)) - first_changed
        if rows > 0:
            self.refresh(Region(0, first_changed, max(1, self.size.width), rows))

    def notify_style_update(self) -> None:
        self._strips.clear()  # new CSS or theme: the lines are drawn again in its colours
        super().notify_style_update()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width > 0 and width != self._tail.width:
            self._tail.rewrap(width)  # a new width (the terminal resized): wrap again
        return len(self._pieces)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if width != self._strip_width:
            self._strips.clear()
            self._strip_width = width
        strip = self._strips.get(y)
        if strip is None:
            style = self.visual_style
            strips = (
                Visual.to_strips(self, self._pieces[y], width, 1, style)
                if y < len(self._pieces)
                else []
            )
            strip = strips[0] if strips else Strip.blank(width, style.rich_style)
            self._strips[y] = strip
        return strip


class StreamTail:
    """Drives one streaming paragraph: `extend` with each batch of text that has no newline."""

    def __init__(
        self,
        block: Markdown,
        head: MarkdownParagraph,
        source: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.block = block
        self.head = head
        # The block's own parser (link URLs shown: widgets/markdown_render.py), so the streamed
        # lines are the lines the finished paragraph will have.
        factory = block._parser_factory
        self.parser = factory() if factory is not None else MarkdownIt("gfm-like")
        self.done: list[Content] = []  # wrapped lines no later text can change
        self.stable = Content("")  # parsed for good, from the first line not done
        self.unstable = source.lstrip()  # source not yet cut off
        self.width = head.content_region.width
        self._lines = 0  # wrapped lines shown at the last update
        self._reserved = 0  # the height the live widget was given (0: its own)
        self._clock = clock
        self._started = clock()
        # The live widget takes the paragraph's place while it streams (the parsed head is
        # hidden, and shown again with the finished text by `close`).
        self.live = LiveParagraph(block, self)
        block.mount(self.live, after=head)
        head.display = False
        self._wrap(first_changed=0)
        self._base_lines = self._lines  # the paragraph's lines when it started streaming here

    def _inline(self, src: str) -> Content:
        tokens: list[Token] = self.parser.parseInline(src)
        return self.head._token_to_content(tokens[0]) if tokens else Content("")

    def extend(self, fragment: str) -> None:
        self.unstable += fragment
        cut = stable_cut(self.unstable)
        if cut:
            self.stable += self._inline(self.unstable[:cut])
            self.unstable = self.unstable[cut:]
        self._wrap(first_changed=len(self.done))

    def rewrap(self, width: int) -> None:
        """Wrap every line again at `width` (the lines done at the old width are joined back)."""
        self.width = width
        if self.done:
            self.stable = Content("").join([*self.done, self.stable])
            self.done = []
        self._wrap(first_changed=0, during_layout=True)

    def _wrap(self, first_changed: int, during_layout: bool = False) -> None:
        tail = self.stable + self._inline(self.unstable)
        width = self.width
        if width <= 0:
            # Not laid out yet: one line for now; the layout gives the width and wraps it.
            self.live.show([*self.done, tail], 0, layout=True)
            self._lines = 0
            return
        # Greedy wrapping of text that starts at a line start gives the lines wrapping the whole
        # paragraph gives, so only the text after the last done line is wrapped again.
        offsets = divide_line(tail.plain, width, fold=True)  # where lines 1, 2, ... start
        pieces = tail.divide(offsets) if offsets else [tail]
        # A line whose next line starts inside the stable text is done: its words and its
        # break are fixed whatever comes (the last line never is).
        limit = len(self.stable.plain)
        keep = 0
        while keep < len(offsets) and offsets[keep] < limit:
            keep += 1
        if keep:
            self.done.extend(pieces[:keep])
            self.stable = self.stable[offsets[keep - 1] :]
            pieces = pieces[keep:]
        lines = len(self.done) + len(pieces)
        # Most deltas do not start a line, and most new lines fit the reserved height: then only
        # the changed lines are repainted, with no layout pass over the screen.
        relayout = lines != self._lines and lines > self._reserved
        if relayout and not during_layout:
            self._reserved = lines + self._ahead(lines) - 1
            self.live.styles.min_height = self._reserved
        self.live.show([*self.done, *pieces], first_changed, layout=relayout and not during_layout)
        self._lines = lines

    def _ahead(self, lines: int) -> int:
        """How many lines a step reserves: what the stream brings in RESERVE_S at its rate."""
        elapsed = self._clock() - self._started
        if elapsed < RATE_AFTER_S:  # no rate to go by yet: the first steps are small
            return RESERVE_LINES
        coming = (lines - self._base_lines) * RESERVE_S / elapsed
        return max(RESERVE_LINES, min(MAX_RESERVE_LINES, math.ceil(coming)))

    def close(self) -> AwaitRemove:
        """Hand the paragraph back to the Markdown widget (it re-renders it exactly): the head
        shows the streamed text until then, so nothing flickers."""
        self.head.set_content(self.live._content)
        self.head.display = True
        return self.live.remove()
