"""The live panel of the turn's queued and running tools.

Updates only change plain state and mark the widget dirty; Textual renders a dirty widget once per
frame, so 16 tools reporting 50 times a second still cost one render per frame. Finished tools
stay visible for `linger_s` (so a quick tool is seen at all) and then leave; at the end of the
turn the panel goes at once: nothing runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from widgets.tool_block import format_elapsed

RowState = Literal["queued", "awaiting", "running", "done", "error", "stopped"]
BAR_WIDTH = 12
# icon + space, elapsed column (" 12.3s  "), bar with percentage, separator.
FIXED_COLUMNS = 2 + 9 + BAR_WIDTH + 5 + 1
ROW_ICONS: dict[str, tuple[str, str]] = {
    "queued": ("○", "dim"),
    "awaiting": ("?", "lathe.busy"),
    "running": ("◐", "lathe.busy"),
    "done": ("●", "lathe.ok"),
    "error": ("✗", "lathe.failed"),
    "stopped": ("■", "lathe.stopped"),
}


@dataclass
class ProgressRow:
    tool_use_id: str
    name: str
    summary: str
    state: RowState = "queued"
    started_at: float | None = None
    finished_at: float | None = None
    elapsed: float | None = None
    fraction: float | None = None
    last_line: str = ""
    # The change the call's input says it makes ("+2 -1", an Edit's), shown after its label.
    stat: str = ""


def bar(fraction: float, width: int = BAR_WIDTH) -> Text:
    fraction = min(1.0, max(0.0, fraction))
    filled = round(fraction * width)
    text = Text()
    text.append("━" * filled, style="lathe.ok")
    text.append("━" * (width - filled), style="dim")
    text.append(f" {fraction * 100:3.0f}%")
    return text


class ProgressPanel(Widget):
    DEFAULT_CSS = """
    ProgressPanel {
        height: auto;
        max-height: 12;
        padding: 0 1;
        border-top: solid $panel-lighten-2;
        display: none;
    }
    ProgressPanel.-active { display: block; }
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        linger_s: float = 1.5,
        tick_s: float | None = 0.25,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.linger_s = linger_s
        self.tick_s = tick_s
        self.rows: dict[str, ProgressRow] = {}
        self._frame: tuple[Style, list[ProgressRow], float] | None = None

    def on_mount(self) -> None:
        if self.tick_s:
            # Elapsed times advance and finished rows leave even when no event arrives.
            self.set_interval(self.tick_s, self._tick)

    def _tick(self) -> None:
        if self.rows:
            self.prune()
            self._changed()

    def _changed(self, *, rows_changed: bool = False) -> None:
        # Only a row coming or going changes the panel's height; everything else is a repaint,
        # which Textual coalesces into one per frame however many events arrive.
        if rows_changed:
            self.set_class(bool(self.rows), "-active")
            self.refresh(layout=True)
        else:
            self.refresh()

    def queued(self, tool_use_id: str, name: str, summary: str, stat: str = "") -> None:
        self.rows[tool_use_id] = ProgressRow(tool_use_id, name, summary, stat=stat)
        self._changed(rows_changed=True)

    def checking(self, tool_use_id: str) -> None:
        """Taken, being checked (hooks, the permission decision): shown running, with no clock
        yet (it has not run)."""
        row = self.rows.get(tool_use_id)
        if row is not None and row.finished_at is None:
            row.state = "running"
            row.started_at = None
            self._changed()

    def started(self, tool_use_id: str, at: float | None) -> None:
        """Really running from `at` on (the engine's "running" moment; again after a question
        the running tool asked, the wait taken off). None: not known, no clock shown."""
        row = self.rows.get(tool_use_id)
        if row is not None and row.finished_at is None:
            row.state = "running"
            row.started_at = at
            self._changed()

    def awaiting(self, tool_use_id: str) -> None:
        """Waiting for the user's answer: not running, and no clock."""
        row = self.rows.get(tool_use_id)
        if row is not None and row.finished_at is None:
            row.state = "awaiting"
            self._changed()

    def progressed(
        self, tool_use_id: str, text: str = "", output: str = "", fraction: float | None = None
    ) -> None:
        row = self.rows.get(tool_use_id)
        if row is None:
            return
        if fraction is not None:
            row.fraction = fraction
        line = text or _last_line(output)
        if line:
            row.last_line = line
        self._changed()

    def finished(
        self, tool_use_id: str, elapsed: float | None, is_error: bool, *, stopped: bool = False
    ) -> None:
        """`stopped`: denied, interrupted or not run (not a failure of the tool); `elapsed` None:
        it never ran."""
        row = self.rows.get(tool_use_id)
        if row is None:
            return
        row.state = "stopped" if stopped else "error" if is_error else "done"
        row.elapsed = elapsed
        row.finished_at = self.clock()
        self._changed()

    def prune(self) -> None:
        now = self.clock()
        gone = [
            key
            for key, row in self.rows.items()
            if row.finished_at is not None and now - row.finished_at >= self.linger_s
        ]
        for key in gone:
            del self.rows[key]
        if gone:
            self._changed(rows_changed=True)

    def end_turn(self) -> None:
        """The turn is over (done, interrupted or denied): nothing runs, so the panel goes at
        once; whatever never finished will not, and the blocks above say how each call ended."""
        self.rows.clear()
        self._changed(rows_changed=True)

    def clear(self) -> None:
        self.rows.clear()
        self._changed(rows_changed=True)

    def counts(self) -> str:
        running = sum(1 for r in self.rows.values() if r.state == "running")
        queued = sum(1 for r in self.rows.values() if r.state == "queued")
        awaiting = sum(1 for r in self.rows.values() if r.state == "awaiting")
        parts = [f"{running} running"]
        if awaiting:
            parts.append(f"{awaiting} awaiting approval")
        if queued:
            parts.append(f"{queued} queued")
        return ", ".join(parts)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Known without rendering: the header and one line per row. Textual would otherwise
        # render the whole panel just to measure it on every layout.
        return 1 + len(self.rows)

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every line needs, worked out once a frame instead of once a line: the base style
        # (Textual walks the ancestors' backgrounds for it: half of a line's cost), the rows,
        # the time.
        self._frame = (self.rich_style, list(self.rows.values()), self.clock())
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        """One line of the panel: the header, then a row per tool. Textual's Line API: while
        tools report, every frame repaints the panel, and building each line's segments directly
        costs a fifth of rendering one 17-line Text (which Textual wraps and splits whole)."""
        width = self.content_size.width
        base, rows, now = self._frame or (self.rich_style, list(self.rows.values()), self.clock())
        if y == 0:
            line = self._header()
        else:
            if y > len(rows):
                return Strip.blank(width, base)
            line = self._row(rows[y - 1], now, max(width, 40))
        line.stylize_before(base)
        strip = Strip(line.render(self.app.console, end=""), line.cell_len)
        return strip.crop_extend(0, width, base)

    def render(self) -> RenderableType:
        """The whole panel as one Text (what `render_line` draws line by line)."""
        now = self.clock()
        width = max(self.content_size.width, 40)
        out = Text(no_wrap=True, overflow="crop")
        out.append_text(self._header())
        for row in self.rows.values():
            out.append("\n")
            out.append_text(self._row(row, now, width))
        return out

    def _header(self) -> Text:
        return Text(f"Tools: {self.counts()}", style="bold")

    def _columns(self, width: int) -> tuple[int, int, bool]:
        """(label width, last-line width, whether the bar column is drawn), the same for every
        row so the columns line up. The label gets 2/5 of what the fixed columns leave; a label
        that needs more takes the bar's column when no row has a bar, and up to 3/4 of the rest,
        so at 60 columns `Bash sleep 4` is not cut to `Bash sleep…` (tui-r4 F1); all of the rest
        while no call has an output line. Only labels, bars and whether any output line exists
        decide it: the lines' lengths never move the columns."""
        flexible = width - FIXED_COLUMNS
        label_width = max(8, flexible * 2 // 5)
        rows = self.rows.values()
        need = max((_label_len(r) for r in rows), default=0)
        if need <= label_width:
            return label_width, max(0, flexible - label_width), True
        has_bar = any(r.fraction is not None for r in rows)
        room = flexible + (0 if has_bar else BAR_WIDTH + 5)
        # The last-line column is kept only while some call has an output line to show in
        # it; until then the labels take it all (tui-r5 F7: 17 columns sat empty at 80 while
        # three subjects were cut).
        has_line = any(r.last_line for r in rows)
        reserve = max(8, room // 4) if has_line else 0
        label_width = max(label_width, min(need, room - reserve))
        return label_width, max(0, room - label_width), has_bar

    def _row(self, row: ProgressRow, now: float, width: int) -> Text:
        """Plain fixed columns: far cheaper than a rich Table, drawn each frame while tools
        report."""
        label_width, line_width, bar_column = self._columns(width)
        icon, style = ROW_ICONS[row.state]
        if row.finished_at is not None:
            elapsed = format_elapsed(row.elapsed) if row.elapsed is not None else ""
        elif row.state == "awaiting":
            elapsed = "waiting"
        elif row.started_at is not None:
            elapsed = format_elapsed(max(0.0, now - row.started_at))
        else:
            elapsed = ""
        out = Text(no_wrap=True, overflow="crop")
        out.append(icon, style=style)
        out.append(" ")
        label = Text(row.name, style="bold")
        if row.summary:
            label.append(f" {row.summary}")
        # The stat keeps its place: a long path is cut before it.
        stat = f" {row.stat}" if row.stat and len(row.stat) + 8 < label_width else ""
        label.truncate(label_width - len(stat), overflow="ellipsis")
        label.append(stat, style="dim")
        label.truncate(label_width, pad=True)
        out.append_text(label)
        out.append(f" {elapsed:>7} ", style="dim")
        if row.fraction is not None:
            out.append_text(bar(row.fraction))
        elif bar_column:
            out.append(" " * (BAR_WIDTH + 5))
        out.append(" ")
        last = Text(row.last_line, style="dim")
        last.truncate(line_width, overflow="ellipsis")
        out.append_text(last)
        return out


def _label_len(row: ProgressRow) -> int:
    """The cells the row's label needs whole: the name, the summary and the stat."""
    summary = f" {row.summary}" if row.summary else ""
    stat = f" {row.stat}" if row.stat else ""
    return cell_len(row.name + summary + stat)


def _last_line(output: str) -> str:
    for line in reversed(output.splitlines()):
        if line.strip():
            return line.strip()
    return ""
