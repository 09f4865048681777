"""Hierarchical abort signals.

Aborts cascade downwards only: the turn's controller is the parent of the batch's sibling
controller, which is the parent of each tool's own controller. Aborting a child never touches its
parent, so one failed Bash command cancels its siblings without ending the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

AbortReason = Literal[
    "user_interrupt", "user_denied", "sibling_error", "streaming_fallback", "timeout", "other"
]


class AbortSignal:
    """The read side of an abort: tools observe it, only the controller fires it."""

    def __init__(self) -> None:
        self._aborted = False
        self._reason: AbortReason | None = None
        self._detail = ""
        self._listeners: list[Callable[[], None]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> AbortReason | None:
        return self._reason

    @property
    def detail(self) -> str:
        """Free text that goes with the reason (for a sibling error: the failing tool_use id)."""
        return self._detail

    def add_listener(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` once when aborted (at once if already aborted). Returns a remover."""
        if self._aborted:
            callback()
            return lambda: None
        self._listeners.append(callback)

        def remove() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return remove

    async def wait(self) -> None:
        """Wait until aborted."""
        if self._aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def _fire(self, reason: AbortReason, detail: str) -> bool:
        if self._aborted:
            return False
        self._aborted = True
        self._reason = reason
        self._detail = detail
        if self._event is not None:
            self._event.set()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()
        return True


class AbortController:
    """Owns an AbortSignal; a child controller aborts when its parent does, with the same reason."""

    def __init__(self, parent: AbortSignal | None = None) -> None:
        self.signal = AbortSignal()
        self._unlink: Callable[[], None] | None = None
        if parent is not None:
            self._unlink = parent.add_listener(lambda: self._abort_from(parent))

    def _abort_from(self, parent: AbortSignal) -> None:
        self.abort(parent.reason or "other", parent.detail)

    def abort(self, reason: AbortReason = "other", detail: str = "") -> bool:
        """Abort this controller and every descendant. Returns False if it already was aborted."""
        fired = self.signal._fire(reason, detail)
        if self._unlink is not None:
            self._unlink()
            self._unlink = None
        return fired

    def detach(self) -> None:
        """Stop listening to the parent (a finished tool must not keep its parent's listener)."""
        if self._unlink is not None:
            self._unlink()
            self._unlink = None

    def child(self) -> AbortController:
        return AbortController(self.signal)
