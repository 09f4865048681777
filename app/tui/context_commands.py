"""`/compact [instructions]` and `/context`: the context window from the TUI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.api import ErrorOccurred, SessionPort

if TYPE_CHECKING:
    from app.tui.app import LatheApp


class ContextCommands:
    def __init__(self, app: LatheApp) -> None:
        self.app = app

    def cmd_context(self, arg: str) -> None:
        session = self.app.session
        if session is None:
            self.app.notice("No session yet: the context is empty.")
            return
        self.app.notice("\n".join(session.context_breakdown()))

    def cmd_compact(self, arg: str) -> None:
        """Summarise now; runs like a turn (prompts typed meanwhile wait for it, Esc stops it)."""
        session = self.app.session
        if session is None:
            self.app.notice("No session yet: nothing to compact.", "warning")
            return
        if self.app.turn_running:
            self.app.notice("A turn is running: wait for it (or Esc), then /compact.", "warning")
            return
        self.app.turn_running = True
        self.app.run_worker(self._compact(session, arg), group="turn", exit_on_error=False)

    async def _compact(self, session: SessionPort, instructions: str) -> None:
        try:
            await session.compact(instructions)
        except Exception as exc:  # the engine reports failures as events; never crash the UI
            self.app.handle_engine_event(ErrorOccurred(f"{type(exc).__name__}: {exc}"))
        finally:
            self.app.turn_running = False
            self.app.router.set_activity("")
            self.app.turns.send_queued()
