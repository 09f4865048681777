"""Sending prompts, interrupting (Ctrl+C, Esc), the quit window and the permission-mode cycle.

The App owns one TurnControl; its bindings' actions call in here. The App's reactive
`turn_running` is the one flag of a running turn (or compaction).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from textual.timer import Timer

from app.engine.api import ErrorOccurred, Notice, SessionPort

if TYPE_CHECKING:
    from app.tui.app import LatheApp

MODE_CYCLE = ("default", "acceptEdits", "plan")


class TurnControl:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        # Prompts sent while the session starts or a turn runs, in order.
        self.queued: deque[str] = deque()
        self._last_ctrl_c: float | None = None
        self._idle_timer: Timer | None = None

    # -- idle notification ----------------------------------------------------------------------
    def arm_idle_notification(self, waiting: bool) -> None:
        from app.tui.idle_notify import idle_seconds

        if self._idle_timer is not None:
            self._idle_timer.stop()
            self._idle_timer = None
        session = self.app.session
        if waiting and session is not None and session.wants_idle_notification:
            self._idle_timer = self.app.set_timer(idle_seconds(), self._idle_notify)

    def _idle_notify(self) -> None:
        from app.tui.idle_notify import IDLE_MESSAGE

        self._idle_timer = None
        session = self.app.session
        if session is not None and not self.app.turn_running:
            self.app.run_worker(
                session.notify_idle(IDLE_MESSAGE), group="hooks", exit_on_error=False
            )

    # -- prompts ----------------------------------------------------------------------------
    def submit(self, text: str) -> None:
        app = self.app
        if text.lstrip().startswith("/") and not app.commands.is_custom(text):
            app.commands.run(text.strip())
            return
        session = app.session
        if app.turn_running and session is not None and session.send_while_running(text):
            # The engine hands it to the model with the running batch's results (tools declared
            # "cancel" stop for it); what is left when the turn ends starts the next turn.
            app.handle_engine_event(Notice(f"Sent with the running turn: {text[:60]}"))
            return
        if session is None or app.turn_running:
            self.queued.append(text)
            why = "the session is starting" if session is None else "after this turn"
            app.handle_engine_event(Notice(f"Queued: {text[:60]} ({why})"))
            return
        self._start(session, text)

    def _start(self, session: SessionPort, text: str) -> None:
        self.adopt(session, session.run_turn(text))

    def adopt(self, session: SessionPort, turn: Awaitable[object]) -> None:
        """Drive a turn: one sent here, or the first turn the composition started before the
        App ran (app/tui/ports.py's EarlyTurn)."""
        self.app.turn_running = True
        self.app.run_worker(self._drive(session, turn), group="turn", exit_on_error=False)

    async def _drive(self, session: SessionPort, turn: Awaitable[object]) -> None:
        app = self.app
        try:
            await turn
        except Exception as exc:  # the engine should report errors as events; never crash the UI
            app.handle_engine_event(ErrorOccurred(f"{type(exc).__name__}: {exc}"))
        finally:
            app.turn_running = False
            app.router.set_activity("")
            app.permissions.drop_resolved()
            leftover = session.take_queued_prompts()
            if leftover:
                self.queued.appendleft("\n\n".join(leftover))
            self.send_queued()

    def send_queued(self) -> None:
        session = self.app.session
        if self.queued and session is not None and not self.app.turn_running:
            self._start(session, self.queued.popleft())

    # -- interrupting -------------------------------------------------------------------------
    def interrupt(self) -> None:
        app = self.app
        if not app.turn_running:
            return
        if app.session is not None:
            app.session.interrupt()
        # Should the engine not have answered an open dialog, answer it as aborted here: an
        # interrupt must never leave a dialog waiting.
        question = app.permissions.open_question
        if question is not None:
            question.abort()
        app.permissions.drop_resolved()
        app.router.set_activity("interrupting…")

    def clear_prompt(self) -> None:
        self.app.main.prompt.clear()
        self._last_ctrl_c = None

    def quit_twice(self) -> None:
        config = self.app.config
        now = config.clock()
        last = self._last_ctrl_c
        if last is not None and now - last <= config.quit_window_s:
            self.app.exit(0)
            return
        self._last_ctrl_c = now
        self.app.notify("Press Ctrl+C again to quit", timeout=config.quit_window_s)

    # -- modes --------------------------------------------------------------------------------
    def cycle_mode(self) -> None:
        app = self.app
        current = app.permission_mode
        nxt = (
            MODE_CYCLE[(MODE_CYCLE.index(current) + 1) % 3] if current in MODE_CYCLE else "default"
        )
        if app.session is not None:
            app.session.set_permission_mode(nxt)
        app.config.permission_mode = nxt
        app.main.status_bar.set(permission_mode=nxt)
