"""Coalescing progress reports: at most `rate` a second, however fast a command prints."""

from __future__ import annotations

import asyncio
import time

from tools.base import ProgressCallback, ToolProgress

MAX_RATE = 30.0
# The progress channel feeds a live view that shows the tail; a burst larger than this between two
# reports is cut to its end so a flood of output cannot grow the pending buffer without bound.
MAX_PENDING_CHARS = 64 * 1024
_LAST_LINE_WINDOW = 2048


class ProgressThrottle:
    """Collects output chunks and reports them to `callback` no more often than `rate` a second.

    A chunk arriving within the interval is held and sent, joined with the ones after it, when the
    interval ends (a timer), so the last output is never lost when the command goes quiet.
    """

    def __init__(self, callback: ProgressCallback, rate: float = MAX_RATE) -> None:
        self._callback = callback
        self._interval = 1.0 / rate
        self._pending: list[str] = []
        self._pending_chars = 0
        self._dropped = False
        self._window = ""
        self._last_sent = -1e9
        self._timer: asyncio.TimerHandle | None = None
        self.total_chars = 0
        self.reports = 0

    def push(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        self._window = (self._window + text)[-_LAST_LINE_WINDOW:]
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars > MAX_PENDING_CHARS:
            joined = "".join(self._pending)[-MAX_PENDING_CHARS:]
            self._pending, self._pending_chars, self._dropped = [joined], len(joined), True
        wait = self._last_sent + self._interval - time.monotonic()
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        output = "".join(self._pending)
        if self._dropped:
            output = "…\n" + output[output.find("\n") + 1 :] if "\n" in output else output
        self._pending, self._pending_chars, self._dropped = [], 0, False
        self._last_sent = time.monotonic()
        self.reports += 1
        try:
            self._callback(
                ToolProgress(
                    text=self.last_line,
                    output=output,
                    data={"total_chars": self.total_chars},
                )
            )
        except Exception:
            pass

    def close(self) -> None:
        self.flush()

    @property
    def last_line(self) -> str:
        for line in reversed(self._window.splitlines()):
            if line.strip():
                return line.strip()[:500]
        return ""
