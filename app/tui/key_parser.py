"""Textual's terminal input parser, telling Alt+Enter from Enter.

A terminal without the kitty keyboard protocol (xterm, VTE, tmux) sends Alt+Enter as ESC CR.
Textual turns ESC plus a character into `alt+<key>` for letters only, so Alt+Enter arrived as a
plain Enter and sent the prompt. Here ESC CR is `alt+enter`, which the prompt reads as a new line.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser

ALT_ENTER = "\x1b\r"


class KeyParser(XTermParser):
    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if sequence == ALT_ENTER or (alt and sequence == "\r"):
            return [events.Key("alt+enter", None)]
        return super()._sequence_to_key_events(sequence, alt)
