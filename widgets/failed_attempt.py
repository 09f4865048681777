"""What is left on screen of a model response that broke and was thrown away: one dimmed,
labelled block in place of the partial answer and the tool calls it had queued, so the retried
answer that follows is not read as a second copy of the same text."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from widgets.counts import more_lines

# Of the thrown-away text only its start is kept on screen: enough to recognise it.
SHOWN_LINES = 3


class FailedAttemptBlock(Static):
    DEFAULT_CSS = """
    FailedAttemptBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        color: $text-muted;
        border-left: thick $warning;
    }
    """

    finished = True

    def __init__(self, text: str, tools: Sequence[str], retrying: bool) -> None:
        self.text = text
        self.tools = tuple(tools)
        self.retrying = retrying
        super().__init__(self.frozen())

    @property
    def label(self) -> str:
        return "failed attempt; retrying" if self.retrying else "failed attempt"

    def frozen(self) -> RenderableType:
        return self._drawn(SHOWN_LINES)

    def full_view(self) -> RenderableType:
        """In the full view (Ctrl+O) the thrown-away text is whole: nothing is cut there."""
        return self._drawn(None)

    def _drawn(self, limit: int | None) -> RenderableType:
        parts: list[RenderableType] = [Text(f"↻ {self.label}", style="bold")]
        lines = self.text.strip().splitlines()
        if lines:
            shown = Text("\n".join(lines[:limit]), style="dim italic")
            hidden = len(lines) - limit if limit is not None else 0
            if hidden > 0:
                shown.append(f"\n… {more_lines(hidden)}", style="dim")
            parts.append(shown)
        if self.tools:
            parts.append(Text("not run: " + ", ".join(self.tools), style="dim"))
        return Group(*parts)
