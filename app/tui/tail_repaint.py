"""When the output tails of running tool blocks are repainted: each at most TAIL_HZ times a second,
and at most TAILS_PER_FRAME of them in one frame.

The progress panel shows every tool's newest line at once; the blocks in the conversation only
need to keep up. Repainting all of them together (16 busy tools, every tenth of a second) made
one frame in six render 16 blocks, ~15 ms of work on this machine, and that frame was the one
every progress event waited behind (bench tui: event to frame p99). Spread out, each frame
renders a couple of blocks and no frame stands out. Dirty blocks wait in the order they first
changed, so none is starved however many report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.timer import Timer

TAIL_HZ = 10
TAILS_PER_FRAME = 2
FRAME_S = 1 / 60


class TailRepaints:
    def __init__(
        self,
        app: App[Any],
        repaint: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._app = app
        self._repaint = repaint
        self._clock = clock
        self._dirty: dict[str, None] = {}  # insertion order: the oldest change first
        self._last: dict[str, float] = {}  # when each block was last repainted
        self._timer: Timer | None = None

    @property
    def waiting(self) -> list[str]:
        """The blocks whose new output is not yet painted, in the order they will be."""
        return list(self._dirty)

    def mark(self, tool_use_id: str) -> None:
        """The block has new output to show."""
        self._dirty.setdefault(tool_use_id, None)
        if self._timer is None:
            self._timer = self._app.set_timer(self._delay(), self.flush)

    def forget(self, tool_use_id: str) -> None:
        """The block finished: its final state is painted by its own update."""
        self._dirty.pop(tool_use_id, None)
        self._last.pop(tool_use_id, None)

    def _due_in(self, tool_use_id: str, now: float) -> float:
        last = self._last.get(tool_use_id)
        return 0.0 if last is None else max(0.0, last + 1 / TAIL_HZ - now)

    def _delay(self) -> float:
        """Until the next flush: the first block due, but never sooner than a frame and never
        later than TAIL_HZ allows."""
        now = self._clock()
        soonest = min((self._due_in(t, now) for t in self._dirty), default=1 / TAIL_HZ)
        return max(FRAME_S, min(soonest, 1 / TAIL_HZ))

    def flush(self) -> None:
        """Repaint up to TAILS_PER_FRAME blocks that are due; come back for the rest."""
        self._timer = None
        now = self._clock()
        due = [t for t in self._dirty if self._due_in(t, now) == 0.0][:TAILS_PER_FRAME]
        for tool_use_id in due:
            del self._dirty[tool_use_id]
            self._last[tool_use_id] = now
            self._repaint(tool_use_id)
        if self._dirty:
            self._timer = self._app.set_timer(self._delay(), self.flush)
