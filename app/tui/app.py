"""LatheApp: the concerns combined, the bindings, and the session's start after the first paint."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from textual import on
from textual.binding import Binding
from textual.events import AppBlur

from app.engine.api import SessionPort
from app.tui.app_base import AppBase
from app.tui.commands import COMMANDS, SlashCommands
from app.tui.context_commands import ContextCommands
from app.tui.exit_watch import ExitWatch
from app.tui.live_settings import LiveSettings
from app.tui.permission_queue import PermissionQueue
from app.tui.ports import SessionFactory, TuiConfig
from app.tui.screens.main import MainScreen
from app.tui.screens.settings_error import SettingsAnswer, SettingsErrorScreen
from app.tui.screens.trust import TrustScreen
from app.tui.turns import TurnControl
from widgets.prompt_input import PromptInput


class LatheApp(
    TurnControl,
    PermissionQueue,
    LiveSettings,
    ContextCommands,
    SlashCommands,
    ExitWatch,
    AppBase,
):
    TITLE = "lathe"
    # Ctrl+C is three bindings on one key; check_action enables exactly one of them at a time, so
    # the footer names what Ctrl+C will do now.
    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Interrupt", priority=True, id="interrupt"),
        Binding("ctrl+c", "clear_prompt", "Clear", priority=True, id="clear_prompt"),
        Binding("ctrl+c", "quit_twice", "Quit", priority=True, id="quit"),
        Binding("escape", "interrupt", "Interrupt", show=False, id="interrupt_esc"),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True, id="cycle_mode"),
        Binding("f2", "toggle_mouse", "Mouse", id="toggle_mouse"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit_now"),
    ]

    def __init__(
        self,
        config: TuiConfig | None = None,
        *,
        session_factory: SessionFactory | None = None,
        session: SessionPort | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(config or TuiConfig(), **kwargs)
        self.session_factory = session_factory
        self.session = session
        self.main = MainScreen(self.config, COMMANDS)
        self.load_themes()
        if self.config.keymap:
            self.set_keymap(self.config.keymap)

    def get_default_screen(self) -> MainScreen:
        return self.main

    def on_mount(self) -> None:
        # What the first frame needed (Textual, the widgets, their styles) lives as long as the
        # app: frozen, a full collection never walks it again. A full collection of it costs
        # ~40 ms (on 2 cores), which landing mid-stream or mid-progress holds back a frame.
        self.call_after_refresh(gc.freeze)
        self.apply_theme(self.config.theme)
        self.start_exit_watch()
        if self.config.offline_demo:
            self.notice(
                "Offline demo: no API key is set, so a scripted model tours this repository. "
                "Set ANTHROPIC_API_KEY to talk to Claude."
            )
        if self.config.settings_problems:
            # Before anything else: a broken file may hold the deny rule that matters.
            check = self.config.check_settings or (lambda: self.config.settings_problems)
            screen = SettingsErrorScreen(self.config.settings_problems, check)
            self.push_screen(screen, self._settings_answered)
        else:
            self._begin()

    def _settings_answered(self, answer: SettingsAnswer | None) -> None:
        if answer == "exit" or answer is None:
            self.exit(2, return_code=2)
            return
        if answer == "continue":
            self.notice(
                "Going on with broken settings: their deny and ask rules apply, nothing else "
                "from them.",
                "warning",
            )
        self._begin()

    def _begin(self) -> None:
        if self.config.ask_trust_for:
            # The session is built after the answer: trust decides which project rules and hooks
            # it loads.
            self.push_screen(TrustScreen(self.config.ask_trust_for), self._trust_answered)
        elif self.session is None and self.session_factory is not None:
            # After the first paint: building the session imports the anthropic SDK (~1 s).
            self.call_after_refresh(self._start_session)
        elif self.config.initial_prompt:
            self.submit_prompt(self.config.initial_prompt)

    def _start_session(self) -> None:
        self.run_worker(self._build_session(), group="session", exit_on_error=False)

    async def _build_session(self) -> None:
        factory = self.session_factory
        assert factory is not None
        try:
            self.session = await factory(self.handle_engine_event)
        except Exception as exc:
            self.notice(f"Could not start the session: {type(exc).__name__}: {exc}", "error")
            return
        # What is alive now (Textual, the SDK, pydantic's schemas) lives as long as the process.
        # A full collection walks all of it (~90 ms on 2 cores), and one landing mid-stream holds
        # back the frame with the answer's last words; frozen objects are never scanned again.
        gc.freeze()
        self.main.status_bar.set(
            model=self.session.model, permission_mode=self.session.permission_mode
        )
        self.add_custom_commands()
        from app.tui.status_line import attach_status_line

        self.status_line = attach_status_line(self.main.status_bar, self.session)
        report = getattr(self.session, "report_context", None)
        if callable(report):
            report()  # the meter shows from the start (a resumed session may be well filled)
        self.start_settings_watch()
        if self.config.initial_prompt:
            self.submit_prompt(self.config.initial_prompt)
        self._send_queued()
        await asyncio.sleep(0)

    async def on_unmount(self) -> None:
        """Quitting ends the session properly: SessionEnd hooks run, background shells and MCP
        servers stop, the transcript file closes. A slow close never holds the exit long."""
        status_line = getattr(self, "status_line", None)
        if status_line is not None:
            status_line.close()
        close = getattr(self.session, "close", None)
        if callable(close):
            try:
                await asyncio.wait_for(close(), 5)
            except Exception:
                pass

    def _trust_answered(self, trusted: bool | None) -> None:
        folder = self.config.ask_trust_for
        if folder and self.config.on_trust is not None:
            self.config.on_trust(folder, bool(trusted))
        if not trusted:
            self.notice("Folder not trusted: its hooks and allow rules are ignored.", "warning")
        if self.session is None and self.session_factory is not None:
            self.call_after_refresh(self._start_session)
        elif self.config.initial_prompt:
            self.submit_prompt(self.config.initial_prompt)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":
            return self.turn_running
        if action in ("clear_prompt", "quit_twice"):
            if self.turn_running:
                return False
            has_text = bool(self.main.prompt.text) if self.main.prompt.is_mounted else False
            return has_text if action == "clear_prompt" else not has_text
        return True

    @on(PromptInput.Submitted)
    def _prompt_submitted(self, event: PromptInput.Submitted) -> None:
        self.submit_prompt(event.value)

    @on(AppBlur)
    def _blurred(self) -> None:
        if self.open_dialog is not None:
            self.bell()
