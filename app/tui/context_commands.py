"""`/compact [instructions]` and `/context`: the context window from the TUI."""

from __future__ import annotations

from typing import Any

from app.engine.events import ErrorOccurred
from app.tui.app_base import AppBase


class ContextCommands(AppBase):
    turn_running: Any

    def cmd_context(self, arg: str) -> None:
        describe = getattr(self.session, "context_breakdown", None)
        if not callable(describe):
            self.notice("No session yet: the context is empty.")
            return
        self.notice("\n".join(describe()))

    def cmd_compact(self, arg: str) -> None:
        """Summarise now; runs like a turn (prompts typed meanwhile wait for it, Esc stops it)."""
        compact = getattr(self.session, "compact", None)
        if not callable(compact):
            self.notice("No session yet: nothing to compact.", "warning")
            return
        if self.turn_running:
            self.notice("A turn is running: wait for it (or Esc), then /compact.", "warning")
            return
        self.turn_running = True
        self.run_worker(self._compact(compact, arg), group="turn", exit_on_error=False)

    async def _compact(self, compact: Any, instructions: str) -> None:
        try:
            await compact(instructions)
        except Exception as exc:  # the engine reports failures as events; never crash the UI
            self.handle_engine_event(ErrorOccurred(f"{type(exc).__name__}: {exc}"))
        finally:
            self.turn_running = False
            self.set_activity("")
            send = getattr(self, "_send_queued", None)
            if callable(send):
                send()
