"""State and seams shared by the App's concerns (events, turns, permissions, commands).

Each concern is a mixin subclass of AppBase in its own module; `LatheApp` combines them. The
methods here that raise are implemented by exactly one mixin.
"""

from __future__ import annotations

from typing import Any, Literal

from textual.app import App

from app.engine.api import PermissionQuestion, SessionPort
from app.engine.events import EngineEvent, UsageUpdated
from app.tui.ports import TuiConfig
from app.tui.screens.main import MainScreen
from widgets.tool_block import ToolBlock


class AppBase(App[int]):
    config: TuiConfig
    session: SessionPort | None
    main: MainScreen
    usage: UsageUpdated | None
    _tool_blocks: dict[str, ToolBlock]

    def __init__(self, config: TuiConfig, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config = config
        self.session = None
        self.usage = None
        self._tool_blocks = {}
        self._dirty_tails: set[str] = set()

    @property
    def permission_mode(self) -> str:
        if self.session is not None:
            return self.session.permission_mode
        return self.config.permission_mode

    def set_activity(self, text: str) -> None:
        self.main.status_bar.set(activity=text)

    def handle_engine_event(self, event: EngineEvent) -> None:
        raise NotImplementedError

    def enqueue_permission(self, prompt: PermissionQuestion) -> None:
        raise NotImplementedError

    def drop_resolved_permissions(self) -> None:
        raise NotImplementedError

    def submit_prompt(self, text: str) -> None:
        raise NotImplementedError

    def run_slash_command(self, text: str) -> None:
        raise NotImplementedError

    def open_dialog_prompt(self) -> PermissionQuestion | None:
        raise NotImplementedError

    def notice(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        raise NotImplementedError

    def apply_theme(self, name: str) -> bool:
        raise NotImplementedError
