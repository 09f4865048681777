"""The prompt's completion popup: what it offers (slash commands, `@` paths, earlier prompts) and
the list under the prompt that shows them with a highlight.

The prompt keeps the focus the whole time: it owns a `Popup` (the items and the highlighted one)
and the list only draws it, so arrowing through the choices never moves focus or loses a key.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

PopupKind = Literal["slash", "path", "history"]
MAX_SHOWN = 8
# The list's lines at most (its max-height less the count line), and a help's lines at most.
MAX_LINES = 9
HELP_LINES = 2
MAX_NAME_CELLS = 28


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    help: str
    prefix: str = "/"  # "@" for a path completion, "" for an earlier prompt


@dataclass
class Popup:
    """The choices offered for the prompt's text, and the highlighted one."""

    kind: PopupKind
    items: list[SlashCommand]
    index: int = 0
    # The prompt text these items were computed for: a change of text recomputes them.
    for_text: str = field(default="", compare=False)

    @property
    def current(self) -> SlashCommand:
        return self.items[self.index]

    def move(self, step: int) -> None:
        """Up/Down: the highlight moves, wrapping at either end (as Claude Code's list does)."""
        self.index = (self.index + step) % len(self.items)


def history_matches(history: Sequence[str], text: str, limit: int = 50) -> list[SlashCommand]:
    """Earlier prompts containing `text` (any case), newest first, each once."""
    needle = text.strip().lower()
    seen: set[str] = set()
    out: list[SlashCommand] = []
    for entry in reversed(history):
        if entry in seen or needle not in entry.lower():
            continue
        seen.add(entry)
        out.append(SlashCommand(entry, "", ""))
        if len(out) >= limit:
            break
    return out


def _window(count: int, index: int, size: int) -> range:
    """The items shown: `size` of them, scrolled so the highlighted one is visible."""
    start = min(max(0, index - size + 1), max(0, count - size))
    return range(start, min(count, start + size))


class CompletionHint(Static):
    """The popup's list under the prompt: each choice on a line, the highlighted one marked
    (a pointer and the theme's highlight colour) and a count when the list scrolls."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"completion-hint--highlight"}
    DEFAULT_CSS = """
    CompletionHint {
        height: auto;
        max-height: 10;
        padding: 0 1;
        color: $text-muted;
        display: none;
    }
    CompletionHint.-active { display: block; }
    CompletionHint > .completion-hint--highlight {
        background: $primary 30%;
        color: $foreground;
        text-style: bold;
    }
    """

    popup: Popup | None = None

    def show_popup(self, popup: Popup | None) -> None:
        self.popup = popup if popup is not None and popup.items else None
        self.set_class(self.popup is not None, "-active")
        self.refresh(layout=True)

    def render(self) -> Text:
        popup = self.popup
        text = Text(no_wrap=True, overflow="ellipsis")
        if popup is None:
            return text
        highlight = self.get_component_rich_style("completion-hint--highlight", partial=True)
        width = self.content_size.width or 80
        labels = [item.prefix + item.name.replace("\n", " ⏎ ") for item in popup.items]
        # The helps line up in a column after the longest name shown (within reason).
        shown = _window(len(popup.items), popup.index, MAX_SHOWN)
        column = min(max(cell_len(labels[i]) for i in shown), MAX_NAME_CELLS)
        indent = 2 + column + 2
        helps = {i: _wrap(popup.items[i].help, width - indent) for i in range(len(labels))}
        # A help wrapped over two lines takes two: fewer choices show, all of them whole.
        size = MAX_SHOWN
        while size > 1 and sum(len(helps[i]) or 1 for i in shown) > MAX_LINES:
            size -= 1
            shown = _window(len(popup.items), popup.index, size)
        for line, i in enumerate(shown):
            item = popup.items[i]
            if line:
                text.append("\n")
            start = len(text)
            chosen = i == popup.index
            text.append("❯ " if chosen else "  ")
            label = labels[i]
            if item.help:
                label += " " * max(0, column - cell_len(label)) + "  "
            text.append(label, style="bold" if item.prefix else "")
            for n, part in enumerate(helps[i]):
                if n:  # a wrapped help goes on under its column, not at the left edge
                    if chosen:
                        text.append(" " * max(0, width - cell_len(text.plain[start:])))
                    text.append("\n" + " " * indent)
                text.append(part)
            if chosen:
                # The bar spans the (last) line, so the choice reads as selected at a glance.
                used = cell_len(text.plain[start:].rsplit("\n", 1)[-1])
                text.append(" " * max(0, width - used))
                text.stylize(highlight, start, len(text))
        if len(popup.items) > len(shown):
            text.append(
                f"\n  {popup.index + 1}/{len(popup.items)} · ↑↓ move · Tab accept · Esc close"
            )
        return text


def _wrap(help_text: str, width: int) -> list[str]:
    """A choice's help in lines of `width` cells, at most HELP_LINES (the last cut with …)."""
    if not help_text:
        return []
    lines = textwrap.wrap(help_text, max(10, width)) or [help_text]
    if len(lines) > HELP_LINES:
        rest = " ".join(lines[HELP_LINES - 1 :])
        lines = [*lines[: HELP_LINES - 1], textwrap.shorten(rest, max(10, width), placeholder="…")]
    return lines
