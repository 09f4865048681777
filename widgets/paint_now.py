"""Paint the screen now, not at the next tick of its update timer.

Textual composes a frame when its screen's 60 Hz update timer ticks after something was marked
dirty; a change made just after a tick waits up to a frame (16.7 ms) for the next one. While text
streams in, that wait coalesces the deltas of one frame and costs nothing. The end of an answer is
different: no later delta will come, the user is waiting for the last words, and the wait is pure
latency. `paint_now` asks the screen to run its update at once, as the next thing its message loop
does; the timer tick that follows finds nothing dirty and does nothing.

It calls Screen._on_timer_update, Textual's own update step (the one its timer calls): pinned with
textual==8.2.8, as widgets/stream_tail.py's use of Textual's markdown internals is.
"""

from __future__ import annotations

from textual.widget import Widget


def paint_now(widget: Widget) -> None:
    """Compose and write the frame with `widget`'s latest change as soon as its screen is free."""
    if not widget.is_attached:
        return
    screen = widget.screen
    screen.call_next(screen._on_timer_update)
