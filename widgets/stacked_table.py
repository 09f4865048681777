"""A markdown table too wide for the pane, as Claude Code shows it: one "Column: value" line per
cell, the rows apart by a rule, so nothing is cut. A table whose columns fit (each at least as
wide as its longest word) keeps its grid; only one that cannot fit without cutting a word or a
header is stacked. Both the live answer (Textual's MarkdownTable) and the frozen one (Rich's
table element, the archive and the full view) decide the same way, at their width of the moment.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import TableElement
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import Static
from textual.widgets._markdown import MarkdownTable

# The rule between two stacked rows is at most this wide (Claude Code's is 40 columns).
RULE_WIDTH = 40


def longest_word(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(word) for word in text.split()), default=0)


def grid_min_width(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The narrowest the live grid can be without cutting a word: each column as wide as its
    longest word plus its padding (1 each side), a gutter between columns, the edges."""
    columns = len(headers)
    if not columns:
        return 0
    widths = [longest_word(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row[:columns]):
            widths[i] = max(widths[i], longest_word(cell))
    return sum(w + 2 for w in widths) + (columns - 1) + 2


def stacked_text(headers: Sequence[Text], rows: Sequence[Sequence[Text]], width: int) -> Text:
    """Each row as "Header: value" lines, the rows apart by a dim rule (wrapped, never cut)."""
    out = Text(overflow="fold")
    for index, row in enumerate(rows):
        if index:
            out.append("─" * max(1, min(RULE_WIDTH, width)) + "\n", style="dim")
        for column, header in enumerate(headers):
            cell = row[column] if column < len(row) else Text()
            out.append_text(Text(header.plain, style="bold"))
            out.append(": ")
            out.append_text(cell)
            out.append("\n")
    out.rstrip()
    return out


class FittingTableElement(TableElement):
    """Rich's markdown table (the frozen answer, the full view), stacked when its minimum width
    is more than the width it is drawn at."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        headers = list(self.header.row.cells) if self.header and self.header.row else []
        rows = [list(r.cells) for r in self.body.rows] if self.body else []
        table = Table(box=box.SIMPLE, pad_edge=False, show_edge=True, collapse_padding=True)
        for header in headers:
            table.add_column(header.content.copy())
        for row in rows:
            table.add_row(*[cell.content for cell in row])
        # Measured unbounded: a measurement is clamped to the width it is given.
        needed = Measurement.get(console, options.update(max_width=10_000), table).minimum
        if not headers or needed <= options.max_width:
            yield from super().__rich_console__(console, options)
            return
        texts = [[cell.content for cell in row] for row in rows]
        yield stacked_text([h.content for h in headers], texts, options.max_width)


class FittingMarkdownTable(MarkdownTable):
    """Textual's live markdown table, shown stacked ("Column: value" rows) while its grid cannot
    fit the width it has without cutting a cell; it switches back when the pane widens."""

    DEFAULT_CSS = """
    FittingMarkdownTable > .-stacked { width: 1fr; height: auto; display: none; }
    FittingMarkdownTable.-stack { width: 1fr; }
    FittingMarkdownTable.-stack > .-stacked { display: block; }
    FittingMarkdownTable.-stack > MarkdownTableContent { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Static(classes="-stacked")

    def _stacked(self, width: int) -> Text:
        headers = [Text(h.plain) for h in self._headers]
        rows = [[Text(c.plain) for c in row] for row in self._rows]
        return stacked_text(headers, rows, width)

    def fit(self) -> None:
        """Grid or stacked, for the width the table's container gives it now."""
        width = self.container_size.width
        if width <= 0:
            return
        plain = [h.plain for h in self._headers]
        rows = [[c.plain for c in row] for row in self._rows]
        stack = bool(plain) and grid_min_width(plain, rows) > width
        if stack:
            self.query_one(".-stacked", Static).update(self._stacked(width))
        self.set_class(stack, "-stack")

    def on_resize(self, event: Resize) -> None:
        self.fit()

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit)

    async def _update_from_block(self, block: object) -> None:
        await super()._update_from_block(block)  # type: ignore[arg-type]
        self.fit()
