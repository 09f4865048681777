"""ResolveOnce: a one-shot decision raced by several parties.

A pending permission decision is contested by the dialog, Ctrl+C, a hook and a classifier. An async
racer calls `claim()` before it does anything with side effects (persisting a rule, closing the
dialog); only the first claim succeeds, so exactly one party wins and no decision is applied twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class ResolveOnce(Generic[T]):
    def __init__(self) -> None:
        self._claimed = False
        self._resolved = False
        self._value: T | None = None
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[T], None]] = []

    def claim(self) -> bool:
        """Take the exclusive right to resolve. True for exactly one caller, ever."""
        if self._claimed:
            return False
        self._claimed = True
        return True

    def resolve(self, value: T) -> bool:
        """Claim and resolve in one step; False (and nothing changes) if someone else won."""
        if not self.claim():
            return False
        self.set_claimed(value)
        return True

    def set_claimed(self, value: T) -> None:
        """Deliver the value after a successful `claim()`."""
        if self._resolved:
            raise RuntimeError("ResolveOnce resolved twice")
        self._resolved = True
        self._value = value
        self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(value)

    def is_claimed(self) -> bool:
        return self._claimed

    def is_resolved(self) -> bool:
        """True once someone claimed it: losers must treat it as decided."""
        return self._claimed

    @property
    def value(self) -> T | None:
        return self._value

    def add_done_callback(self, callback: Callable[[T], None]) -> None:
        """Call `callback(value)` once the value is delivered (at once if it already is), so a
        waiter that is not a coroutine (a dialog) learns of it without polling."""
        if self._resolved:
            callback(self._value)  # type: ignore[arg-type]
        else:
            self._callbacks.append(callback)

    async def wait(self) -> T:
        await self._event.wait()
        return self._value  # type: ignore[return-value]
