"""Keys typed at a dialog that are not its keys go to the prompt: nothing typed is ever lost.

A dialog opens while the user may be typing a prompt, and Claude Code drops what is typed then.
lathe keeps it: a printable key that is not one of the dialog's keys (and every printable key
during the dialog's key guard, when even its digits do not answer it) is posted as TypedForPrompt,
which the app inserts into the main screen's prompt at once, so it survives however the dialog
closes. The dialog shows one dim line with what it kept. A dialog's own digit typed within
TYPING_GAP_S of a kept key is part of the same sentence and kept too ("do step 1 now").

Every dialog routes its keys through `take_typed_key` (from its on_key), so they all behave alike:
the trust, broken-settings, permission, plan and question dialogs, and any dialog added later.
"""

from __future__ import annotations

import math
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
# A dialog's digit this soon after a key kept for the prompt is part of the same sentence
# ("please do step 1 differently", tui-r4 F4): kept too, never an answer. A person who means to
# answer after typing prose pauses longer than this between words and the digit.
TYPING_GAP_S = 1.0


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
        # When the last key kept for the prompt arrived (Textual's key time).
        self.last_at = -math.inf

    def typing(self, at: float) -> bool:
        """Whether a key that arrived `at` follows a key kept for the prompt closely enough to
        be the same typing."""
        return at - self.last_at < TYPING_GAP_S

    def keep(self, character: str) -> None:
        """Show `character` as kept (keep_for_prompt posts it to the app)."""
        self.kept += character
        shown = self.kept if len(self.kept) <= SHOWN_CHARS else "…" + self.kept[-SHOWN_CHARS:]
        text = Text("Kept for your prompt: ", style="italic")
        text.append(shown)
        self.update(text)
        self.add_class("-kept")


def keep_for_prompt(
    screen: Screen[Any], event: events.Key, kept: TypedAhead, *, at: float | None = None
) -> None:
    """Take `event` from the dialog and give its character to the prompt. Posted by the screen:
    a message a widget posts in its screen's key handler stops at the screen, its sender. `at`:
    when a key of a sentence arrived (the dialog's clock); None: the key (one of the dialog's
    digits, kept) does not make a sentence of what follows."""
    event.stop()
    event.prevent_default()
    kept.keep(event.character or "")
    if at is not None:
        kept.last_at = at
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
    if typing:
        return False
    kept = screen.query_one(TypedAhead)
    # A digit inside a sentence being typed is text, whichever dialog is up.
    in_sentence = dialog_key and bool(event.is_printable and event.character)
    in_sentence = in_sentence and kept.typing(guard.key_time(event))
    if not in_sentence and not for_prompt(event, guard.guarded(), dialog_key):
        return False
    # The sentence goes on through its own digits ("step 12 of 30"); a digit kept in the key
    # guard starts none.
    sentence = in_sentence or not dialog_key
    keep_for_prompt(screen, event, kept, at=guard.key_time(event) if sentence else None)
    return True
