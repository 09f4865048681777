"""The model's thinking in the conversation: one dimmed, collapsed line that opens on a click or
Enter to show what the model thought, and closes again the same way.

    ∴ Thinking…  (Enter to show)
    ∴ Thinking ▾
      The user wants the notes, so I should read notes.txt first…

Redacted thinking (encrypted by the API) has nothing to show: its line says so and does not open.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding
from textual.reactive import var
from textual.widget import Widget

MARK = "∴"


def thinking_blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A message's thinking and redacted_thinking blocks, in order."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        b
        for b in content
        if isinstance(b, Mapping) and b.get("type") in ("thinking", "redacted_thinking")
    ]


def render_thinking(text: str, *, expanded: bool, finished: bool, redacted: bool) -> Text:
    out = Text(no_wrap=False)
    if redacted:
        out.append(
            f"{MARK} Thinking (redacted by the API: nothing to show)", style="lathe.thinking"
        )
        return out
    if not expanded:
        out.append(f"{MARK} Thinking…", style="lathe.thinking")
        lines = len(text.splitlines())
        hint = f"  {lines} line{'s' if lines != 1 else ''} · Enter to show" if finished else ""
        out.append(hint, style="dim")
        return out
    out.append(f"{MARK} Thinking ▾", style="lathe.thinking")
    for line in text.strip("\n").splitlines():
        out.append("\n  ")
        out.append(line, style="lathe.thinking")
    return out


class ThinkingBlock(Widget, can_focus=True):
    """Streams like an answer (feed), collapsed unless opened. Freezable: once finished it can go
    to the conversation's archive as its collapsed line."""

    DEFAULT_CSS = """
    ThinkingBlock {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        color: $text-muted;
    }
    ThinkingBlock:focus { background: $boost; }
    ThinkingBlock:hover { background: $boost; }
    """
    BINDINGS = [Binding("enter,space", "toggle_expanded", "Show thinking", show=False)]
    # A click opens it and leaves the focus where it was (the prompt): what is typed next is not
    # lost on the block. Enter opens it when it has the focus.
    FOCUS_ON_CLICK = False

    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(self, text: str = "", *, redacted: bool = False, finished: bool = False) -> None:
        super().__init__()
        self.text = text
        self.redacted = redacted
        self.finished = finished

    def feed(self, fragment: str) -> None:
        self.text += fragment
        # Collapsed, the block stays one line high: a repaint, not a relayout.
        self.refresh(layout=self.expanded)

    def finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.refresh()

    def render(self) -> RenderableType:
        return render_thinking(
            self.text, expanded=self.expanded, finished=self.finished, redacted=self.redacted
        )

    def frozen(self) -> RenderableType:
        return render_thinking(self.text, expanded=False, finished=True, redacted=self.redacted)

    def full_view(self) -> RenderableType:
        """In the full view (Ctrl+O) the thinking is open, as Claude Code's transcript shows it."""
        return render_thinking(self.text, expanded=True, finished=True, redacted=self.redacted)

    def watch_expanded(self) -> None:
        self.refresh(layout=True)

    def action_toggle_expanded(self) -> None:
        if not self.redacted:
            self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle_expanded()
