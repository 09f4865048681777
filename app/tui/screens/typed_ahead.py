"""Keys typed at a dialog that are not its keys go to the prompt: nothing typed is ever lost.

A dialog opens while the user may be typing a prompt, and Claude Code drops what is typed then.
lathe keeps it: a printable key that is not one of the dialog's keys (and every printable key
during the dialog's key guard, when even its digits do not answer it) is posted as TypedForPrompt,
which the app inserts into the main screen's prompt at once, so it survives however the dialog
closes. The dialog shows one dim line with what it kept.

Every dialog routes its keys through `take_typed_key` (from its on_key), so they all behave alike:
the trust, broken-settings, permission, plan and question dialogs, and any dialog added later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from app.tui.screens.key_guard import KeyGuard, hold_early_key

# Shown at most: the end of what was typed (what the user just pressed).
SHOWN_CHARS = 40


@dataclass
class TypedForPrompt(Message):
    """`text` was typed at a dialog and belongs to the prompt."""

    text: str


def for_prompt(event: events.Key, guarded: bool, dialog_key: bool) -> bool:
    """Whether `event` goes to the prompt: printable, and not answering the dialog (one of its
    keys, after the guard)."""
    if not event.is_printable or not event.character:
        return False
    return guarded or not dialog_key


class TypedAhead(Static):
    """The dim line "kept for the prompt: …"; hidden until something is kept."""

    DEFAULT_CSS = """
    TypedAhead { height: auto; color: $text-muted; display: none; }
    TypedAhead.-kept { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.kept = ""

    def keep(self, character: str) -> None:
        """Show `character` as kept (keep_for_prompt posts it to the app)."""
        self.kept += character
        shown = self.kept if len(self.kept) <= SHOWN_CHARS else "…" + self.kept[-SHOWN_CHARS:]
        text = Text("Kept for your prompt: ", style="italic")
        text.append(shown)
        self.update(text)
        self.add_class("-kept")


def keep_for_prompt(screen: Screen[Any], event: events.Key, kept: TypedAhead) -> None:
    """Take `event` from the dialog and give its character to the prompt. Posted by the screen:
    a message a widget posts in its screen's key handler stops at the screen, its sender."""
    event.stop()
    event.prevent_default()
    kept.keep(event.character or "")
    screen.post_message(TypedForPrompt(event.character or ""))


def take_typed_key(
    screen: Screen[Any], guard: KeyGuard, event: events.Key, *, dialog_key: bool, typing: bool
) -> bool:
    """A dialog's on_key, shared: True when `event` was taken for the prompt (or dropped, in the
    key guard), so the dialog must not act on it. `dialog_key`: the key answers this dialog
    (one of its digits, after the guard). `typing`: a field of the dialog has the keys (the
    feedback or "Other" field), which then takes every printable key itself."""
    if hold_early_key(screen, guard, event):
        return True
    if typing or not for_prompt(event, guard.guarded(), dialog_key):
        return False
    keep_for_prompt(screen, event, screen.query_one(TypedAhead))
    return True
