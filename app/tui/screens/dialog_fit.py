"""Fitting a modal dialog to a small screen (60x20, 80x24): its buttons stack when one row cannot
hold them, and its one scrolling part (a plan, a list of problems) gets only the rows the rest
of the dialog leaves, so the choices never fall below the screen or off its right edge.

Call `fit` from the screen's on_mount and on_resize; it measures after the next refresh (sizes
are known only after layout) and is a no-op once the dialog is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button

# Below these the dialog drops its padding and blank rows (the `-small` class in the .tcss).
SMALL_WIDTH = 80
SMALL_HEIGHT = 30
# The screen's footer and one spare row.
FOOTER_ROWS = 2
# Textual's Button min-width.
BUTTON_MIN = 16
# A scrolling part keeps at least this many rows.
MIN_ROWS = 2


def fit(
    screen: Screen[Any],
    scroll: str | None = None,
    most: int = 18,
    then: Callable[[], None] | None = None,
) -> None:
    """Mark the dialog small on a small screen, then (after layout) stack its buttons and size
    `scroll` (a selector inside #dialog) to the rows left, at most `most`; `then` runs once
    the part has its size (to count what is below it)."""
    try:
        dialog = screen.query_one("#dialog")
    except NoMatches:
        return
    small = screen.size.width < SMALL_WIDTH or screen.size.height < SMALL_HEIGHT
    dialog.set_class(small, "-small")
    screen.call_after_refresh(_measure, screen, scroll, most, then)


def _measure(
    screen: Screen[Any], scroll: str | None, most: int, then: Callable[[], None] | None = None
) -> None:
    try:
        dialog = screen.query_one("#dialog")
        for row in dialog.query(Horizontal):
            stack_buttons(row, dialog.content_region.width)
        if scroll is not None:
            part = dialog.query_one(scroll)
            screen.call_after_refresh(_size_scroll, screen, dialog, part, most)
            if then is not None:
                screen.call_after_refresh(lambda: screen.call_after_refresh(then))
    except NoMatches:
        pass  # answered and dismissed before this ran


def stack_buttons(row: Widget, width: int) -> None:
    """One button per line when their row is wider than `width` (no button cut in half)."""
    buttons = list(row.query(Button))
    if not buttons:
        return
    # A compact button is its label plus one cell each side, at least Textual's min-width (16);
    # the row puts 2 cells between them.
    needed = sum(max(len(str(b.label)) + 2, BUTTON_MIN) for b in buttons) + 2 * (len(buttons) - 1)
    row.set_class(needed > width, "-stacked")


def _size_scroll(screen: Screen[Any], dialog: Widget, part: Widget, most: int) -> None:
    if not part.is_mounted:
        return
    chrome = dialog.outer_size.height - dialog.content_region.height
    others = sum(
        child.outer_size.height for child in dialog.children if child is not part and child.display
    )
    margins = part.styles.margin.top + part.styles.margin.bottom
    room = screen.size.height - FOOTER_ROWS - chrome - others - margins
    part.styles.max_height = max(MIN_ROWS, min(most, room))
