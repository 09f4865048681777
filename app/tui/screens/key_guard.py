"""The key guard every dialog that grants something shares (trust, permission, plan approval,
questions, broken settings).

A key answers such a dialog only if it arrived after the dialog was on screen plus the guard
interval. Two clocks matter: when the dialog was first drawn (not built: a loaded machine can
take seconds between the two, and keys typed before lathe's first frame sit in the terminal
until then), and when the key arrived (Textual stamps each key as its input thread reads it, so
a key read during the guard but handled later, on a busy loop, is still a guarded key). A
guarded key never answers: a printable one goes to the prompt's text (nothing typed is lost),
any other (Enter, Esc, arrows) is dropped.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual._time import get_time
from textual.screen import Screen


class KeyGuard:
    """When a dialog was first shown, and whether a key came too early to answer it."""

    def __init__(self, screen: Screen[Any], key_guard_s: float, clock: Callable[[], float]) -> None:
        self.key_guard_s = key_guard_s
        self.clock = clock
        # Not shown yet: every key is early.
        self.shown_at = math.inf
        self._shown_real = math.inf
        screen.call_after_refresh(self._shown)

    def _shown(self) -> None:
        self.shown_at = self.clock()
        self._shown_real = get_time()

    def guarded(self) -> bool:
        """Inside the guard now (for clicks and actions that have no key event)."""
        return self.clock() - self.shown_at < self.key_guard_s or math.isinf(self.shown_at)

    def early(self, event: events.Key) -> bool:
        """Whether `event` arrived before the dialog was shown or within its guard."""
        if event.time < self._shown_real:
            return True
        if self.clock is time.monotonic:
            # lathe's clock is Textual's: judge the key by when it arrived, not when handled.
            return event.time - self.shown_at < self.key_guard_s
        return self.guarded()  # a test's clock: the key arrives when it is handled

    def key_time(self, event: events.Key) -> float:
        """When `event` arrived, on the guard's clock (a test's clock: when it is handled)."""
        return event.time if self.clock is time.monotonic else self.clock()


def hold_early_key(screen: Screen[Any], guard: KeyGuard, event: events.Key) -> bool:
    """Take `event` from `screen` if it came too early to answer it: True when taken. A printable
    key goes to the prompt (the screen's "kept" line shows it when it has one)."""
    if not guard.early(event):
        return False
    from app.tui.screens.typed_ahead import TypedAhead, TypedForPrompt, keep_for_prompt

    kept = screen.query(TypedAhead)
    if event.is_printable and event.character and kept:
        # Letters held here start a sentence a digit then belongs to; a held digit does not.
        at = None if event.character.isdigit() else guard.key_time(event)
        keep_for_prompt(screen, event, kept.first(), at=at)
        return True
    event.stop()
    event.prevent_default()
    if event.is_printable and event.character:
        screen.post_message(TypedForPrompt(event.character))
    return True
