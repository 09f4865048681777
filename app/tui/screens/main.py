"""The main screen: conversation, plan, live progress panel, prompt, status bar, footer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from app.tui.ports import TuiConfig
from widgets.busy_line import BusyLine
from widgets.conversation import Conversation
from widgets.full_view import ShowFullView
from widgets.plan_view import PlanView
from widgets.progress_panel import ProgressPanel
from widgets.prompt_input import CompletionHint, PromptInput, SlashCommand
from widgets.status_bar import StatusBar, StatusInfo
from widgets.welcome import Welcome

# The welcome line's keys, most important first: (binding id or "", default key, what it does).
# A key remapped in the settings' [keymap] is shown as remapped.
WELCOME_KEYS = (
    ("", "/", "commands"),
    ("cycle_mode", "Shift+Tab", "mode"),
    ("interrupt_esc", "Esc", "interrupt"),
    ("quit_now", "Ctrl+Q", "quit"),
    ("", "Ctrl+P", "palette"),
    ("toggle_mouse", "F2", "mouse"),
)


def key_label(keys: str) -> str:
    """ "ctrl+g,f9" -> "Ctrl+G": the first key, as the footer spells keys."""
    first = keys.split(",")[0].strip()
    return "+".join(p.upper() if len(p) == 1 else p.capitalize() for p in first.split("+"))


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    BINDINGS = [
        Binding("ctrl+o", "full_view", "Full view", show=False, id="full_view"),
    ]

    def __init__(self, config: TuiConfig, commands: Sequence[SlashCommand]) -> None:
        super().__init__()
        self.config = config
        self.conversation = Conversation(id="conversation", live_limit=config.live_blocks)
        self.plan = PlanView(id="plan")
        self.progress = ProgressPanel(
            id="progress",
            clock=config.clock,
            linger_s=config.progress_linger_s,
            tick_s=config.progress_tick_s,
        )
        self.busy = BusyLine(id="busy", clock=config.clock, tick_s=config.busy_tick_s)
        self.prompt = PromptInput(
            id="prompt",
            commands=commands,
            cursor_blink=config.cursor_blink,
            path_root=Path.cwd(),  # `@path` completion: the TUI's working folder
        )
        self.hint = CompletionHint(id="hint")
        keys = [
            (key_label(config.keymap[bid]) if bid in config.keymap else key, action)
            for bid, key, action in WELCOME_KEYS
        ]
        self.welcome = Welcome(config.model, config.folder, keys)
        # In the archive: above any resumed history, scrolling away with the conversation.
        self.conversation.add_header(self.welcome)
        self.status_bar = StatusBar(
            StatusInfo(
                model=config.model,
                permission_mode=config.permission_mode,
                folder=config.folder,
                branch=config.branch,
                mouse_captured=config.mouse_captured,
            ),
            id="status",
        )

    def compose(self) -> ComposeResult:
        placement = self.config.progress_placement
        if placement == "top":
            yield self.progress
        yield self.conversation
        yield self.plan
        if placement == "bottom":
            yield self.progress
        yield self.busy
        yield self.prompt
        yield self.hint
        yield self.status_bar
        yield Footer()

    def on_mount(self) -> None:
        self.prompt.focus()

    def show_model(self, model: str) -> None:
        """The session's model is known (or changed): the status bar and the welcome say it."""
        self.status_bar.set(model=model)
        if model and model != self.welcome.model:
            self.welcome.model = model
            self.conversation.archive.restyle()

    _prompt_had_text = False

    @on(PromptInput.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.hint.show_popup(self.prompt.popup)
        # What Ctrl+C does (clear or quit) depends only on whether the prompt is empty; the
        # footer is rebuilt on every refresh, so not on every key.
        has_text = bool(self.prompt.text)
        if has_text != self._prompt_had_text:
            self._prompt_had_text = has_text
            self.app.refresh_bindings()

    @on(PromptInput.PopupChanged, "#prompt")
    def _popup_changed(self) -> None:
        self.hint.show_popup(self.prompt.popup)

    @on(PromptInput.ScrollRequested, "#prompt")
    def _scroll_requested(self, event: PromptInput.ScrollRequested) -> None:
        conversation = self.conversation
        match event.where:
            case "page_up":
                conversation.scroll_page_up(animate=False)
            case "page_down":
                conversation.scroll_page_down(animate=False)
            case "home":
                conversation.scroll_home(animate=False)
            case "end":
                conversation.scroll_end(animate=False)  # and follows new output again

    def on_key(self, event: events.Key) -> None:
        """A key typed while something else has the focus (a clicked tool block, the
        conversation) goes to the prompt, and the focus with it: nothing typed is lost."""
        # A printable key typed in the prompt never gets here (the prompt takes it); one that
        # does came from elsewhere, maybe just before the focus moved back.
        if not event.is_printable or event.character is None:
            return
        if event.key in self.active_bindings:
            return  # a key the focused block binds (Space expands a tool block)
        if not self.prompt.is_mounted or self.prompt.disabled:
            return
        event.stop()
        self.set_focus(self.prompt)
        self.prompt.insert(event.character)

    def action_full_view(self) -> None:
        from app.tui.screens.full_view import open_full_view

        open_full_view(self.app, self.conversation)

    @on(ShowFullView)
    def _show_full_view(self, event: ShowFullView) -> None:
        from app.tui.screens.full_view import open_full_view

        open_full_view(self.app, self.conversation, at=event.block)
