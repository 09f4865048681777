"""The multi-line prompt: Enter sends, Shift+Enter or Ctrl+J adds a line, Up/Down walk the history
(from the first/last line), and a leading "/" offers slash-command completion (Tab completes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static, TextArea

from widgets.path_complete import PathIndex, quote


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    help: str
    prefix: str = "/"  # "@" for a path completion


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
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder="Ask lathe… (Enter sends, Shift+Enter new line, / for commands)",
            id=id,
        )
        self.cursor_blink = cursor_blink
        self.commands = list(commands)
        # `@path` completion from the files under this folder (None: no path completion).
        self.paths = PathIndex(path_root) if path_root is not None else None
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    # -- completion ---------------------------------------------------------------------------
    def _mention(self) -> str | None:
        """The `@partial` being typed at the end of the text, without the `@`."""
        text = self.text
        start = max(text.rfind(" "), text.rfind("\n")) + 1
        word = text[start:]
        if not word.startswith("@") or '"' in word or self.paths is None:
            return None
        return word[1:]

    def completions(self) -> list[SlashCommand]:
        partial = self._mention()
        if partial is not None and self.paths is not None:
            return [SlashCommand(p, "", "@") for p in self.paths.matches(partial)]
        text = self.text
        if not text.startswith("/") or " " in text or "\n" in text:
            return []
        return [c for c in self.commands if c.name.startswith(text[1:])]

    def complete(self) -> bool:
        if self._mention() is not None:
            return self._complete_path()
        matches = self.completions()
        if not matches:
            return False
        names = [m.name for m in matches]
        prefix = names[0]
        for name in names[1:]:
            while not name.startswith(prefix):
                prefix = prefix[:-1]
        target = f"/{names[0]} " if len(names) == 1 else f"/{prefix}"
        if target == self.text:
            return False
        self.load_text(target)
        self.move_cursor(self.document.end)
        return True

    def _complete_path(self) -> bool:
        """Tab on `@partial`: the best match replaces it (a folder keeps completing)."""
        matches = self.completions()
        if not matches:
            return False
        text = self.text
        start = max(text.rfind(" "), text.rfind("\n")) + 1
        best = matches[0].name
        target = text[:start] + quote(best) + ("" if best.endswith("/") else " ")
        if target == text:
            return False
        self.load_text(target)
        self.move_cursor(self.document.end)
        return True

    # -- keys ---------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "tab" and self.complete():
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def submit(self) -> None:
        value = self.text
        if not value.strip():
            return
        if not self.prompt_history or self.prompt_history[-1] != value:
            self.prompt_history.append(value)
        self._history_index = None
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

    def history_previous(self) -> None:
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.prompt_history)
        if self._history_index > 0:
            self._history_index -= 1
            self._show(self.prompt_history[self._history_index])

    def history_next(self) -> None:
        if self._history_index is None:
            return
        self._history_index += 1
        if self._history_index >= len(self.prompt_history):
            self._history_index = None
            self._show(self._draft)
        else:
            self._show(self.prompt_history[self._history_index])

    def _show(self, value: str) -> None:
        self.load_text(value)
        self.move_cursor(self.document.end)


class CompletionHint(Static):
    """The slash commands matching what is typed, under the prompt."""

    DEFAULT_CSS = """
    CompletionHint {
        height: auto;
        max-height: 8;
        padding: 0 2;
        color: $text-muted;
        display: none;
    }
    CompletionHint.-active { display: block; }
    """

    def show_matches(self, matches: Sequence[SlashCommand]) -> None:
        self.set_class(bool(matches), "-active")
        text = Text()
        for i, cmd in enumerate(matches):
            if i:
                text.append("\n")
            text.append(f"{cmd.prefix}{cmd.name}", style="bold")
            if cmd.help:
                text.append(f"  {cmd.help}")
        self.update(text)
