"""LatheApp: a switchboard of owned objects (the event router, the permission queue, the turns,
the slash commands, live settings, the exit watch), the bindings, and the session's start after
the first paint. It reaches the session only through the engine's SessionPort."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.events import AppBlur
from textual.reactive import reactive
from textual.screen import Screen

from app import debuglog, startup_gc
from app.engine.api import EngineEvent, Notice, PermissionQuestion, SessionPort, UsageUpdated
from app.tui.commands import COMMANDS, SlashCommands
from app.tui.event_router import EventRouter
from app.tui.exit_watch import ExitWatch
from app.tui.history import ReplayedHistory
from app.tui.key_order import KeyOrder
from app.tui.live_settings import LiveSettings
from app.tui.permission_queue import Dialog, PermissionQueue
from app.tui.ports import EarlyTurn, SessionFactory, TuiConfig
from app.tui.screens.main import MainScreen
from app.tui.screens.permission import PermissionScreen
from app.tui.screens.settings_error import SettingsAnswer, SettingsErrorScreen
from app.tui.screens.trust import TrustScreen
from app.tui.screens.typed_ahead import TypedForPrompt
from app.tui.theme_styles import ThemeStyles
from app.tui.turns import TurnControl
from app.tui.ui_choices import UiChoices
from themes.loader import ThemeError, ThemeSet, lathe_themes
from widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from app.engine.api import StatusLineCommand


def _after_first_frame() -> None:
    gc.freeze()
    startup_gc.resume()


class LatheApp(App[int]):
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
    # The one flag of a running turn (or compaction): the footer's Ctrl+C follows it.
    turn_running: reactive[bool] = reactive(False)
    mouse_reporting: reactive[bool] = reactive(True)

    def __init__(
        self,
        config: TuiConfig | None = None,
        *,
        session_factory: SessionFactory | None = None,
        session: SessionPort | None = None,
        early_turn: EarlyTurn | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.config = config or TuiConfig()
        self.session_factory = session_factory
        self.session: SessionPort | None = session
        self.early_turn = early_turn
        self.usage: UsageUpdated | None = None
        self.status_line: StatusLineCommand | None = None
        self.main = MainScreen(self.config, COMMANDS)
        self.router = EventRouter(self)
        self.permissions = PermissionQueue(self)
        self.turns = TurnControl(self)
        self.commands = SlashCommands(self)
        self.settings = LiveSettings(self)
        self.exit_watch = ExitWatch(self)
        self.choices = UiChoices(self)
        self.key_order = KeyOrder(self)
        self.themes = self._load_themes()
        # Rich renderables name style roles; their colours come from the theme (on every change).
        self.theme_styles = ThemeStyles(self)
        self.theme_styles.install()
        if self.config.keymap:
            self.set_keymap(self.config.keymap)

    # -- what the owned objects and the tests reach ---------------------------------------------

    @property
    def permission_mode(self) -> str:
        if self.session is not None:
            return self.session.permission_mode
        return self.config.permission_mode

    @property
    def exit_signal(self) -> int | None:
        return self.exit_watch.exit_signal

    @property
    def open_dialog(self) -> Dialog | None:
        return self.permissions.dialog

    @property
    def waiting_permissions(self) -> int:
        return self.permissions.waiting

    def handle_engine_event(self, event: EngineEvent | ReplayedHistory) -> None:
        """The session's sink."""
        self.router.handle(event)

    def notice(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        self.router.handle(Notice(text, level))

    def enqueue_permission(self, question: PermissionQuestion) -> None:
        self.permissions.enqueue(question)

    def submit_prompt(self, text: str) -> None:
        self.turns.submit(text)

    def run_slash_command(self, text: str) -> None:
        self.commands.run(text)

    def add_custom_commands(self) -> None:
        if self.session is not None:
            self.commands.add_custom(self.session)

    def stop_settings_watch(self) -> None:
        self.settings.stop()

    def _load_themes(self) -> ThemeSet:
        folder = self.config.user_theme_dir
        themes = lathe_themes(Path(folder) if folder else None)
        for theme in themes.themes.values():
            self.register_theme(theme)
        for error in themes.errors:
            self.notice(f"Theme file skipped: {error}", "warning")
        return themes

    def apply_theme(self, name: str) -> bool:
        try:
            self.themes.get(name)
        except ThemeError as exc:
            self.notice(str(exc), "error")
            return False
        self.theme = name
        return True

    def get_css_variables(self) -> dict[str, str]:
        # Light themes' footer keys raised to a legible contrast (legible_footer.py).
        from app.tui.legible_footer import legible_footer_variables

        variables = super().get_css_variables()
        return legible_footer_variables(variables, dark=self.current_theme.dark)

    def watch_theme(self, name: str) -> None:
        self.theme_styles.repaint()
        if self.is_running:
            self.choices.chose("theme", name)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from self.commands.system_commands()

    def get_driver_class(self) -> type[Driver]:
        base = super().get_driver_class()
        if base.__name__ == "LinuxDriver":
            from app.tui.driver import LatheDriver

            return LatheDriver
        return base

    async def on_event(self, event: events.Event) -> None:
        # A key just read (not one bubbling back): text fields apply it in order (key_order.py).
        fresh_key = isinstance(event, events.Key) and not event.is_forwarded
        await super().on_event(event)
        if fresh_key and isinstance(event, events.Key):
            self.key_order.forwarded(event)

    async def _on_key(self, event: events.Key) -> None:
        self.key_order.reached_app(event)  # before App's own _on_key runs the bindings

    # -- lifecycle ----------------------------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        return self.main

    def on_mount(self) -> None:
        # What the first frame needed (Textual, the widgets, their styles) lives as long as the
        # app: frozen, a full collection never walks it again. A full collection of it costs
        # ~40 ms (on 2 cores), which landing mid-stream or mid-progress holds back a frame.
        # The collector lathe paused for start-up (app/startup_gc.py) runs again from then on.
        self.call_after_refresh(_after_first_frame)
        self.call_after_refresh(self._load_past_prompts)
        self.apply_theme(self.config.theme)
        self.mouse_reporting = self.config.mouse_captured
        self.exit_watch.start()
        if self.config.offline_demo:
            self.notice(
                "Offline demo: no API key is set, so a scripted model tours this repository. "
                "Set ANTHROPIC_API_KEY to talk to Claude."
            )
        if self.config.settings_problems:
            # Before anything else: a broken file may hold the deny rule that matters.
            check = self.config.check_settings or (lambda: self.config.settings_problems)
            screen = SettingsErrorScreen(
                self.config.settings_problems,
                check,
                key_guard_s=self.config.dialog_key_guard_s,
                clock=self.config.clock,
            )
            self.push_screen(screen, self._settings_answered)
        else:
            self._begin()

    def _load_past_prompts(self) -> None:
        load = self.config.past_prompts
        if load is not None:
            self.run_worker(self._past_prompts(load), group="history", exit_on_error=False)

    async def _past_prompts(self, load: Callable[[], Sequence[str]]) -> None:
        """Earlier sessions' prompts join the history when read (a thread: typing never waits)."""
        try:
            earlier = await asyncio.to_thread(load)
        except Exception as exc:  # no history from disk is no reason to stop: say so in the log
            debuglog.record("tui", "reading earlier sessions' prompts failed", exc)
            return
        self.main.prompt.add_earlier_history(earlier)

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
            trust = TrustScreen(
                self.config.ask_trust_for,
                key_guard_s=self.config.dialog_key_guard_s,
                clock=self.config.clock,
            )
            self.push_screen(trust, self._trust_answered)
        elif self.early_turn is not None:
            # `lathe PROMPT`: the session exists and its first request left before Textual
            # loaded; after the first paint the screen takes both over.
            self.call_after_refresh(self._adopt_early_turn)
        elif self.session is None and self.session_factory is not None:
            # After the first paint: building the session imports the anthropic SDK (~1 s).
            self.call_after_refresh(self._start_session)
        elif self.config.initial_prompt:
            self.submit_prompt(self.config.initial_prompt)

    def _start_session(self) -> None:
        if self.config.pick_session_first and self.session is None:
            # `lathe -r`: the session is built once, from the choice (app/tui/commands.py).
            self.config.pick_session_first = False
            self.commands.pick_session_first()
            return
        self.run_worker(self._build_session(), group="session", exit_on_error=False)

    async def _build_session(self) -> None:
        factory = self.session_factory
        assert factory is not None
        try:
            self.session = await factory(self.handle_engine_event)
        except Exception as exc:
            self.notice(f"Could not start the session: {type(exc).__name__}: {exc}", "error")
            return
        self._session_ready(self.session)
        if self.config.initial_prompt:
            self.submit_prompt(self.config.initial_prompt)
        self.turns.send_queued()
        await asyncio.sleep(0)

    def _adopt_early_turn(self) -> None:
        early = self.early_turn
        if early is None:
            return
        self.early_turn = None
        self.session = early.session
        self._session_ready(early.session)
        early.attach(self.handle_engine_event)  # what the turn said so far, then live
        self.config.initial_prompt = None  # sent: a later session (/resume) does not resend it
        self.turns.adopt(early.session, early.turn)

    def _session_ready(self, session: SessionPort) -> None:
        """The screen's side of a new session: its model and mode, its commands, the status
        line, the context meter, the settings watch."""
        # What is alive now (Textual, the SDK, pydantic's schemas) lives as long as the process.
        # A full collection walks all of it (~90 ms on 2 cores), and one landing mid-stream holds
        # back the frame with the answer's last words; frozen objects are never scanned again.
        gc.freeze()
        self.main.status_bar.set(model=session.model, permission_mode=session.permission_mode)
        self.main.show_model(session.model)
        self.commands.add_custom(session)
        from app.tui.status_line import attach_status_line

        self.status_line = attach_status_line(self.main.status_bar, session)
        session.report_context()  # the meter shows from the start (a resumed one may be full)
        self.settings.start()

    async def on_unmount(self) -> None:
        """Quitting ends the session properly: SessionEnd hooks run, background shells and MCP
        servers stop, the transcript file closes. A slow close never holds the exit long."""
        if self.status_line is not None:
            self.status_line.close()
        if self.session is not None:
            try:
                await asyncio.wait_for(self.session.close(), 5)
            except Exception as exc:  # quitting goes on; the log says why the close fell short
                debuglog.record("tui", "the session's close raised or timed out on quit", exc)

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

    # -- bindings -----------------------------------------------------------------------------
    def watch_turn_running(self, running: bool) -> None:
        self.refresh_bindings()
        self.turns.arm_idle_notification(not running)

    def action_interrupt(self) -> None:
        self.turns.interrupt()

    def action_clear_prompt(self) -> None:
        self.turns.clear_prompt()

    def action_quit_twice(self) -> None:
        self.turns.quit_twice()

    def action_cycle_mode(self) -> None:
        if self.open_dialog is not None:
            # Not under an open question: its answer was asked for in the mode shown.
            if isinstance(self.screen, PermissionScreen):
                self.screen.mode_key()  # the only dialog Shift+Tab selects something in
            return
        self.turns.cycle_mode()

    def action_toggle_mouse(self) -> None:
        self.mouse_reporting = not self.mouse_reporting

    def watch_mouse_reporting(self, captured: bool) -> None:
        # With reporting off the terminal's own selection and copy work; lathe still takes keys.
        # Only terminal drivers have these (not the headless one of tests).
        method = "_enable_mouse_support" if captured else "_disable_mouse_support"
        toggle = getattr(self._driver, method, None)
        if callable(toggle):
            toggle()
        if self.main.status_bar.is_mounted:
            self.main.status_bar.set(mouse_captured=captured)
        self.choices.chose("mouse", captured)

    @on(PromptInput.Submitted)
    def _prompt_submitted(self, event: PromptInput.Submitted) -> None:
        # Sent while scrolled up: the view goes to the end and follows the answer (as Ctrl+End).
        self.main.conversation.scroll_end(animate=False)
        self.submit_prompt(event.value)

    @on(TypedForPrompt)
    def _typed_at_a_dialog(self, event: TypedForPrompt) -> None:
        # Kept in the prompt's text for after the dialog (app/tui/screens/typed_ahead.py).
        if self.main.prompt.is_mounted and not self.main.prompt.disabled:
            self.main.prompt.insert(event.text)

    @on(AppBlur)
    def _blurred(self) -> None:
        if self.open_dialog is not None:
            self.bell()
