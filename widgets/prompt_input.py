"""The multi-line prompt. The focus stays here: every key of the main screen is either the
prompt's or a global binding, and nothing typed is lost.

- Enter sends. A new line: `\\`+Enter (the backslash goes), Alt+Enter, Shift+Enter (where the
  terminal reports it) or Ctrl+J.
- Completion from a popup under the prompt (widgets/prompt_popup.py): typing `/` offers the slash
  commands and `@` the files; Tab on other text offers earlier prompts containing it. Up/Down
  move the highlight, Tab accepts it, Enter accepts it (a slash command also runs), Esc closes.
- Up/Down with no popup walk the history from the first/last line.
- PgUp/PgDn, and Home/End while the prompt is empty (Ctrl+Home/Ctrl+End always), scroll the
  conversation: the prompt posts ScrollRequested and its screen scrolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from widgets.path_complete import PathIndex, quote
from widgets.prompt_popup import (
    CompletionHint,
    Popup,
    PopupKind,
    SlashCommand,
    history_matches,
)

__all__ = ["CompletionHint", "Popup", "PromptInput", "SlashCommand"]

ScrollWhere = Literal["page_up", "page_down", "home", "end"]
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "alt+enter"})
SCROLL_KEYS: dict[str, ScrollWhere] = {
    "pageup": "page_up",
    "pagedown": "page_down",
    "ctrl+home": "home",
    "ctrl+end": "end",
}
PLACEHOLDER = "Ask lathe… (Enter sends, Shift+Enter new line, / for commands)"
# Shorter forms for narrow prompts, longest first: the placeholder never runs off the line.
PLACEHOLDER_FORMS = (PLACEHOLDER, "Ask lathe… (Enter sends, / for commands)", "Ask lathe…")


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 60%;
        padding: 0 1;
    }
    PromptInput:focus { border: round $primary; }
    """

    @dataclass
    class Submitted(Message):
        """The user sent `value` (Enter)."""

        prompt_input: PromptInput
        value: str

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    @dataclass
    class PopupChanged(Message):
        """The popup's items or highlight changed: the screen redraws its list (`popup`)."""

        prompt_input: PromptInput

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    @dataclass
    class ScrollRequested(Message):
        """A scrolling key pressed in the prompt: the conversation above should move."""

        prompt_input: PromptInput
        where: ScrollWhere

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    def __init__(
        self,
        *,
        commands: Sequence[SlashCommand] = (),
        cursor_blink: bool = True,
        id: str | None = None,
        path_root: Path | None = None,
    ) -> None:
        super().__init__(
            "",
            soft_wrap=True,
            show_line_numbers=False,
            # Tab is handled in _on_key (completion) and never moves the focus.
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder=PLACEHOLDER,
            id=id,
        )
        self.cursor_blink = cursor_blink
        self.commands = list(commands)
        # `@path` completion from the files under this folder (None: no path completion).
        self.paths = PathIndex(path_root) if path_root is not None else None
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self._popup: Popup | None = None
        # Tab asked for earlier prompts: the popup offers them until accepted or closed.
        self._history_popup = False
        # Esc closed the popup for this text: it stays closed until the text changes.
        self._dismissed_for: str | None = None

    # -- the placeholder ----------------------------------------------------------------------

    def on_resize(self) -> None:
        self._fit_placeholder()

    def watch_placeholder(self) -> None:
        self._fit_placeholder()  # also when a placeholder set elsewhere is given back

    def _fit_placeholder(self) -> None:
        """The longest form of the usual placeholder that fits the line (others are left as set)."""
        width = self.content_size.width
        if self.placeholder not in PLACEHOLDER_FORMS or not width:
            return
        fitting = next((f for f in PLACEHOLDER_FORMS if len(f) < width), PLACEHOLDER_FORMS[-1])
        if fitting != self.placeholder:
            self.placeholder = fitting

    # -- completion ---------------------------------------------------------------------------
    def _mention_start(self) -> int | None:
        """Where the `@partial` being typed at the end of the text starts (None: not one)."""
        text = self.text
        start = max(text.rfind(" "), text.rfind("\n")) + 1
        word = text[start:]
        if not word.startswith("@") or '"' in word or self.paths is None:
            return None
        return start

    def completions(self) -> list[SlashCommand]:
        """The slash commands or paths the text asks for (the popup's items before Tab)."""
        start = self._mention_start()
        if start is not None and self.paths is not None:
            partial = self.text[start + 1 :]
            found = self.paths.matches(partial)
            return [SlashCommand(p, "", "@") for p in found if p != partial]
        text = self.text
        if not text.startswith("/") or " " in text or "\n" in text:
            return []
        return [c for c in self.commands if c.name.startswith(text[1:])]

    @property
    def popup(self) -> Popup | None:
        """The popup for the current text, recomputed when the text has changed: a key that
        arrives before the Changed message still sees what is typed."""
        text = self.text
        if self._popup is not None and self._popup.for_text == text:
            return self._popup if self._popup.items else None
        self._popup = self._compute_popup(text)
        return self._popup if self._popup.items else None

    def _compute_popup(self, text: str) -> Popup:
        if self._dismissed_for is not None and self._dismissed_for != text:
            self._dismissed_for = None
            self._history_popup = False
        if self._dismissed_for == text:
            return Popup("slash", [], for_text=text)
        if self._history_popup:
            found = history_matches(self.prompt_history, text)
            if found:
                return Popup("history", found, for_text=text)
            self._history_popup = False  # nothing earlier matches what is typed now
        kind: PopupKind = "path" if self._mention_start() is not None else "slash"
        return Popup(kind, self.completions(), for_text=text)

    def _popup_changed(self) -> None:
        self.post_message(self.PopupChanged(self))

    def close_popup(self) -> None:
        if self.popup is not None:
            self._dismissed_for = self.text
            self._history_popup = False
            self._popup = None
            self._popup_changed()

    def open_history_popup(self) -> bool:
        """Tab on plain text: the earlier prompts containing it (all of them for an empty
        prompt), newest first. False when none does."""
        if not history_matches(self.prompt_history, self.text):
            return False
        self._history_popup = True
        self._dismissed_for = None
        self._popup = None
        self._popup_changed()
        return True

    def accept(self) -> SlashCommand | None:
        """Put the highlighted choice into the prompt. A folder path keeps the popup open on
        its contents; anything else closes it."""
        popup = self.popup
        if popup is None:
            return None
        item = popup.current
        if popup.kind == "slash":
            target = f"/{item.name} "
        elif popup.kind == "path":
            start = self._mention_start() or 0
            folder = item.name.endswith("/")
            target = self.text[:start] + quote(item.name) + ("" if folder else " ")
        else:
            target = item.name
            self._history_popup = False
        self._show(target)
        if popup.kind == "history":
            self._dismissed_for = target  # the accepted prompt: no slash popup over it
        self._popup_changed()
        return item

    # -- keys ---------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self._popup_key(key):
            event.stop()
            event.prevent_default()
            return
        handled = True
        if key == "enter":
            if self._before_cursor() == "\\":
                # `\`+Enter, which works in every terminal: the backslash becomes the new line.
                row, column = self.cursor_location
                self.replace("\n", (row, column - 1), (row, column))
            else:
                self.submit()
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "tab":
            # Never moves focus: with nothing to offer, Tab does nothing.
            self.open_history_popup()
        elif key in SCROLL_KEYS:
            self.post_message(self.ScrollRequested(self, SCROLL_KEYS[key]))
        elif key in ("home", "end") and not self.text:
            self.post_message(self.ScrollRequested(self, "home" if key == "home" else "end"))
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _popup_key(self, key: str) -> bool:
        """The popup's keys while it is open: True when the key was the popup's."""
        if key not in ("up", "down", "tab", "enter", "escape"):
            return False
        popup = self.popup
        if popup is None:
            return False
        if key in ("up", "down"):
            popup.move(-1 if key == "up" else 1)
            self._popup_changed()
        elif key == "escape":
            self.close_popup()
        else:
            run = key == "enter" and popup.kind == "slash"
            self.accept()
            if run:
                self.submit()
        return True

    def _before_cursor(self) -> str:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        return line[column - 1] if column > 0 else ""

    def submit(self) -> None:
        # An accepted command ends with the space Tab leaves for its arguments.
        value = self.text.rstrip(" ") if self.text.startswith("/") else self.text
        if not value.strip():
            return
        # Each prompt once, at its newest place: Up never shows the same prompt twice.
        if value in self.prompt_history:
            self.prompt_history.remove(value)
        self.prompt_history.append(value)
        self._history_index = None
        self._history_popup = False
        self._dismissed_for = None
        self.clear()
        self.post_message(self.Submitted(self, value))

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0 and self.prompt_history:
            self.history_previous()
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self._history_index is not None:
            self.history_next()
            return
        super().action_cursor_down(select)

    def add_earlier_history(self, earlier: Sequence[str]) -> None:
        """Prompts of earlier sessions (oldest first), before this session's own: each once, at
        its newest place. A walk through the history in progress stays on its entry."""
        mine = set(self.prompt_history)
        added = [p for p in dict.fromkeys(reversed(earlier)) if p not in mine][::-1]
        if not added:
            return
        self.prompt_history[:0] = added
        if self._history_index is not None:
            self._history_index += len(added)

    def history_previous(self) -> None:
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.prompt_history)
        if self._history_index > 0:
            self._history_index -= 1
            self._walk_to(self.prompt_history[self._history_index])

    def history_next(self) -> None:
        if self._history_index is None:
            return
        self._history_index += 1
        if self._history_index >= len(self.prompt_history):
            self._history_index = None
            self._walk_to(self._draft)
        else:
            self._walk_to(self.prompt_history[self._history_index])

    def _walk_to(self, value: str) -> None:
        """Show an earlier prompt while walking the history: no popup opens over it (an earlier
        `/command` would otherwise take the next Up for its highlight)."""
        self._dismissed_for = value
        self._show(value)

    def _show(self, value: str) -> None:
        self.load_text(value)
        self.move_cursor(self.document.end)
