"""Sending prompts, interrupting, Ctrl+C and Esc, the permission-mode cycle, mouse capture."""

from __future__ import annotations

from collections import deque

from textual.reactive import reactive

from app.engine import answers
from app.engine.events import ErrorOccurred, Notice
from app.tui.app_base import AppBase
from app.tui.event_router import EventRouter

MODE_CYCLE = ("default", "acceptEdits", "plan")


class TurnControl(EventRouter, AppBase):
    turn_running: reactive[bool] = reactive(False)
    mouse_reporting: reactive[bool] = reactive(True)
    _queued_prompts: deque[str]
    _last_ctrl_c: float | None = None

    def watch_turn_running(self, running: bool) -> None:
        self.refresh_bindings()
        self._arm_idle_notification(not running)

    def _arm_idle_notification(self, waiting: bool) -> None:
        from app.tui.idle_notify import idle_seconds, notification_hooks

        timer = getattr(self, "_idle_timer", None)
        if timer is not None:
            timer.stop()
            self._idle_timer = None
        if waiting and notification_hooks(self.session) is not None:
            self._idle_timer = self.set_timer(idle_seconds(), self._idle_notify)

    def _idle_notify(self) -> None:
        from app.tui.idle_notify import IDLE_MESSAGE, notification_hooks

        self._idle_timer = None
        hooks = notification_hooks(self.session)
        if hooks is not None and not self.turn_running:
            self.run_worker(
                hooks.notification(IDLE_MESSAGE, "idle_prompt"), group="hooks", exit_on_error=False
            )

    # -- prompts ----------------------------------------------------------------------------
    def submit_prompt(self, text: str) -> None:
        custom = getattr(self, "is_custom_command", None)
        if text.lstrip().startswith("/") and not (callable(custom) and custom(text)):
            self.run_slash_command(text.strip())
            return
        if not hasattr(self, "_queued_prompts"):
            self._queued_prompts = deque()
        send_now = getattr(self.session, "send_while_running", None)
        if self.turn_running and callable(send_now) and send_now(text):
            # The engine hands it to the model with the running batch's results (tools declared
            # "cancel" stop for it); what is left when the turn ends starts the next turn.
            self.handle_engine_event(Notice(f"Sent with the running turn: {text[:60]}"))
            return
        if self.session is None or self.turn_running:
            self._queued_prompts.append(text)
            why = "the session is starting" if self.session is None else "after this turn"
            self.handle_engine_event(Notice(f"Queued: {text[:60]} ({why})"))
            return
        self._start_turn(text)

    def _start_turn(self, text: str) -> None:
        self.turn_running = True
        self.run_worker(self._drive_turn(text), group="turn", exit_on_error=False)

    async def _drive_turn(self, text: str) -> None:
        session = self.session
        assert session is not None
        try:
            await session.run_turn(text)
        except Exception as exc:  # the engine should report errors as events; never crash the UI
            self.handle_engine_event(ErrorOccurred(f"{type(exc).__name__}: {exc}"))
        finally:
            self.turn_running = False
            self.set_activity("")
            self.drop_resolved_permissions()
            take = getattr(session, "take_queued_prompts", None)
            leftover = take() if callable(take) else []
            if leftover:
                self._queued_prompts.appendleft("\n\n".join(leftover))
            self._send_queued()

    def _send_queued(self) -> None:
        queued = getattr(self, "_queued_prompts", None)
        if queued and self.session is not None and not self.turn_running:
            self._start_turn(queued.popleft())

    # -- interrupting -------------------------------------------------------------------------
    def action_interrupt(self) -> None:
        if not self.turn_running:
            return
        if self.session is not None:
            self.session.interrupt()
        # Should the engine not have answered an open dialog, answer it as aborted here: an
        # interrupt must never leave a dialog waiting.
        dialog = self.open_dialog_prompt()
        if dialog is not None:
            dialog.resolver.resolve(answers.aborted())
        self.drop_resolved_permissions()
        self.set_activity("interrupting…")

    def action_clear_prompt(self) -> None:
        self.main.prompt.clear()
        self._last_ctrl_c = None

    def action_quit_twice(self) -> None:
        now = self.config.clock()
        last = self._last_ctrl_c
        if last is not None and now - last <= self.config.quit_window_s:
            self.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit", timeout=self.config.quit_window_s)

    # -- modes --------------------------------------------------------------------------------
    def action_cycle_mode(self) -> None:
        current = self.permission_mode
        nxt = (
            MODE_CYCLE[(MODE_CYCLE.index(current) + 1) % 3] if current in MODE_CYCLE else "default"
        )
        if self.session is not None:
            self.session.set_permission_mode(nxt)
        self.config.permission_mode = nxt
        self.main.status_bar.set(permission_mode=nxt)

    def action_toggle_mouse(self) -> None:
        self.mouse_reporting = not self.mouse_reporting

    def watch_mouse_reporting(self, captured: bool) -> None:
        # With reporting off the terminal's own selection and copy work; lathe still takes keys.
        driver = self._driver
        method = "_enable_mouse_support" if captured else "_disable_mouse_support"
        toggle = getattr(driver, method, None)
        if callable(toggle):
            toggle()
        if self.main.status_bar.is_mounted:
            self.main.status_bar.set(mouse_captured=captured)
