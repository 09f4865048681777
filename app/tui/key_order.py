"""Keys typed into any text field apply in the order they arrived (black-box round 3, F8).

Textual gives a key to the focused widget first; a key the widget does not take itself (Left,
Home, Backspace: the field's own bindings, not its key handler) bubbles up through every parent's
queue and runs as a binding only when it reaches the app. Letters that came in the same read are
inserted by the field meanwhile, so `abc` Left `Z` gave "abcZ". Round 2 fixed this inside the main
prompt alone; every other field (the deny feedback, AskUserQuestion's "Other", the resume search,
the full view's search) still had it.

Here the app does it once for every text field, present or future: right after it hands a key to
a focused `Input` or `TextArea`, it queues a callback on that field, which runs after the field's
own key handlers and before the next key. If the field did not take the key, the callback runs the
field's own binding for it there, in order, and stops the key so it does not run again on arrival
at the app. A binding of a parent (a dialog's Enter, the app's Esc) still runs as before.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea

if TYPE_CHECKING:
    from textual.app import App

# Every text-editing widget Textual has; lathe's fields are these or subclasses of them.
TEXT_FIELDS = (Input, TextArea)
# Keys that reached the app before their field's callback ran (a busy moment): the app ran their
# binding itself. Only the last few are kept: a callback runs within a key or two of its key.
_REMEMBERED = 64


class KeyOrder:
    """The app's half: queue the in-order step after each key it forwards to a text field."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._at_app: deque[events.Key] = deque(maxlen=_REMEMBERED)

    def forwarded(self, event: events.Key) -> None:
        """Call right after the app forwarded `event` (not taken by a priority binding)."""
        field = self.app.focused
        if isinstance(field, TEXT_FIELDS) and event.is_forwarded:
            field.call_later(self._in_order, field, event)

    def reached_app(self, event: events.Key) -> None:
        """Call when `event` bubbled up to the app, before the app runs its bindings."""
        self._at_app.append(event)

    async def _in_order(self, field: Widget, event: events.Key) -> None:
        # Taken by the field (a letter) or by a handler, or already run at the app: nothing left.
        if event._stop_propagation or event._no_default_action:
            return
        if any(seen is event for seen in self._at_app):
            return
        if not field.is_attached or self.app.focused is not field:
            return
        for binding in field._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, field):
                event.stop()
                event.prevent_default()
                return
