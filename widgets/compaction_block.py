"""The compaction boundary in the conversation: what was summarised, into how much, and the
summary itself (its first lines; a click shows it whole). Everything above it stays on screen:
the history remains browsable, only the model's view was replaced."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.widgets import Static

from widgets.counts import more_lines

PREVIEW_LINES = 4


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class CompactionBlock(Static):
    COMPONENT_CLASSES = {"compaction-block--title"}
    DEFAULT_CSS = """
    CompactionBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-top: heavy $accent;
        border-bottom: heavy $accent;
        color: $text-muted;
    }
    CompactionBlock > .compaction-block--title { color: $accent; text-style: bold; }
    """

    def __init__(
        self, trigger: str, tokens_before: int, tokens_after: int, summary: str, seconds: float
    ) -> None:
        self.trigger = trigger
        self.title = "✻ Conversation compacted" + (f" ({trigger})" if trigger else "")
        if tokens_before:  # a boundary replayed from a transcript has no figures
            self.title += f" · {_k(tokens_before)} → {_k(tokens_after)} tokens · {seconds:.1f}s"
        self.summary = summary
        self.expanded = False
        super().__init__()

    def on_mount(self) -> None:
        self.update(self._renderable())

    def _renderable(self, title_style: Style | str | None = None) -> RenderableType:
        style = title_style if title_style is not None else self._title_style()
        lines = self.summary.splitlines()
        shown = lines if self.expanded else lines[:PREVIEW_LINES]
        body = Text("\n".join(shown))
        parts: list[RenderableType] = [Text(self.title, style=style), body]
        if len(lines) > len(shown):
            parts.append(Text(f"… {more_lines(len(lines) - len(shown))} (click to show)"))
        return Group(*parts)

    def _title_style(self) -> Style | str:
        if self.is_mounted:
            return self.get_component_rich_style("compaction-block--title")
        return "bold"

    def on_click(self, event: Click) -> None:
        self.expanded = not self.expanded
        self.update(self._renderable())

    def frozen(self) -> RenderableType:
        return self._renderable("bold")

    finished = True
