"""The live panel of the turn's queued and running tools.

Updates only change plain state and mark the widget dirty; Textual renders a dirty widget once per
frame, so 16 tools reporting 50 times a second still cost one render per frame. Finished tools
stay visible for `linger_s` (so a quick tool is seen at all) and then leave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from widgets.tool_block import format_elapsed

RowState = Literal["queued", "running", "done", "error"]
BAR_WIDTH = 12


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


def bar(fraction: float, width: int = BAR_WIDTH) -> Text:
    fraction = min(1.0, max(0.0, fraction))
    filled = round(fraction * width)
    text = Text()
    text.append("━" * filled, style="green")
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

    def on_mount(self) -> None:
        if self.tick_s:
            # Elapsed times advance and finished rows leave even when no event arrives.
            self.set_interval(self.tick_s, self._tick)

    def _tick(self) -> None:
        if self.rows:
            self.prune()
            self._changed()

    def _changed(self) -> None:
        self.set_class(bool(self.rows), "-active")
        self.refresh(layout=True)

    def queued(self, tool_use_id: str, name: str, summary: str) -> None:
        self.rows[tool_use_id] = ProgressRow(tool_use_id, name, summary)
        self._changed()

    def started(self, tool_use_id: str, at: float) -> None:
        row = self.rows.get(tool_use_id)
        if row is not None:
            row.state = "running"
            row.started_at = at
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

    def finished(self, tool_use_id: str, elapsed: float, is_error: bool) -> None:
        row = self.rows.get(tool_use_id)
        if row is None:
            return
        row.state = "error" if is_error else "done"
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
            self._changed()

    def end_turn(self) -> None:
        """The turn is over: whatever never finished will not; finished rows linger as usual."""
        for key in [k for k, r in self.rows.items() if r.finished_at is None]:
            del self.rows[key]
        self._changed()

    def clear(self) -> None:
        self.rows.clear()
        self._changed()

    def counts(self) -> str:
        running = sum(1 for r in self.rows.values() if r.state == "running")
        queued = sum(1 for r in self.rows.values() if r.state == "queued")
        parts = [f"{running} running"]
        if queued:
            parts.append(f"{queued} queued")
        return ", ".join(parts)

    def render(self) -> RenderableType:
        now = self.clock()
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=2, no_wrap=True, overflow="ellipsis")
        table.add_column(width=7, justify="right")
        table.add_column(width=BAR_WIDTH + 5, no_wrap=True)
        table.add_column(ratio=3, no_wrap=True, overflow="ellipsis")
        for row in self.rows.values():
            icon, style = {
                "queued": ("○", "dim"),
                "running": ("◐", "yellow"),
                "done": ("●", "green"),
                "error": ("✗", "red"),
            }[row.state]
            if row.elapsed is not None:
                elapsed = format_elapsed(row.elapsed)
            elif row.started_at is not None:
                elapsed = format_elapsed(max(0.0, now - row.started_at))
            else:
                elapsed = ""
            label = Text(row.name, style="bold")
            if row.summary:
                label.append(f" {row.summary}", style="")
            progress = bar(row.fraction) if row.fraction is not None else Text("")
            table.add_row(
                Text(icon, style=style),
                label,
                Text(elapsed, style="dim"),
                progress,
                Text(row.last_line, style="dim"),
            )
        header = Text(f"Tools: {self.counts()}", style="bold")
        return Group(header, table)


def _last_line(output: str) -> str:
    for line in reversed(output.splitlines()):
        if line.strip():
            return line.strip()
    return ""
