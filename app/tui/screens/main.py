"""The main screen: conversation, plan, live progress panel, prompt, status bar, footer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from app.tui.ports import TuiConfig
from widgets.conversation import Conversation
from widgets.plan_view import PlanView
from widgets.progress_panel import ProgressPanel
from widgets.prompt_input import CompletionHint, PromptInput, SlashCommand
from widgets.status_bar import StatusBar, StatusInfo


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"

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
        self.prompt = PromptInput(
            id="prompt",
            commands=commands,
            cursor_blink=config.cursor_blink,
            path_root=Path.cwd(),  # `@path` completion: the TUI's working folder
        )
        self.hint = CompletionHint(id="hint")
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
        yield self.prompt
        yield self.hint
        yield self.status_bar
        yield Footer()

    def on_mount(self) -> None:
        self.prompt.focus()

    _prompt_had_text = False

    @on(PromptInput.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.hint.show_matches(self.prompt.completions())
        # What Ctrl+C does (clear or quit) depends only on whether the prompt is empty; the
        # footer is rebuilt on every refresh, so not on every key.
        has_text = bool(self.prompt.text)
        if has_text != self._prompt_had_text:
            self._prompt_had_text = has_text
            self.app.refresh_bindings()
