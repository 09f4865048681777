"""A tool block's one-row head, cut so that its state is the last thing to go (black-box round 3,
F12): "◐ Bash  touch a && sleep 3 && echo done…  running…" at 80 columns, not "… Create sentinel
A  runni…". The command, its description and the diff stat give way first; the state (running…,
waiting, the elapsed time of a finished call) stays whole while the row has room for it.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text


class ToolHead:
    """`body` then `state` on one row of the width given: `body` is cut (with …) before `state`."""

    def __init__(self, body: Text, state: Text, aside: Text | None = None) -> None:
        self.body = body
        self.state = state
        # Text after the body (a finished call's summary): on the row when all of it fits,
        # else on a row of its own below ("⎿ Running in the background (…)", as Claude Code).
        self.aside = aside

    def rows(self, width: int) -> list[Text]:
        if self.aside is None:
            return [self.line(width)]
        whole = self.body.cell_len + self.aside.cell_len + self.state.cell_len
        if whole <= width:
            return [ToolHead(self.body + self.aside, self.state).line(width)]
        below = Text(no_wrap=True, overflow="ellipsis", style=self.aside.style)
        below.append("⎿ " + self.aside.plain.strip())
        below.truncate(width, overflow="ellipsis")
        return [self.line(width), below]

    def line(self, width: int) -> Text:
        body = self.body.copy()
        room = width - self.state.cell_len
        if body.cell_len > room:
            # Too narrow even for a little of the body beside the state: cut the whole row.
            if room < 2:
                whole = Text(no_wrap=True, overflow="ellipsis")
                whole.append_text(body)
                whole.append_text(self.state)
                whole.truncate(width, overflow="ellipsis")
                return whole
            body.truncate(room, overflow="ellipsis")
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append_text(body)
        row.append_text(self.state)
        return row

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.rows(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = self.body.cell_len + self.state.cell_len
        if self.aside is not None:
            width += self.aside.cell_len
        return Measurement(min(width, options.max_width), min(width, options.max_width))

    @property
    def plain(self) -> str:
        aside = self.aside.plain if self.aside is not None else ""
        return self.body.plain + aside + self.state.plain
