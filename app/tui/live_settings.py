"""Settings changes applied to the running App: theme, keymap, and a notice in the conversation
of what changed or what is broken. The rules reach the session without the App (the watch the
composition root gives it applies them through the session's port)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from app.tui.ports import SettingsReport

if TYPE_CHECKING:
    from app.tui.app import LatheApp


class LiveSettings:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        watch, session = self.app.config.settings_watch, self.app.session
        if watch is None or session is None or self._stop is not None:
            return
        self._stop = asyncio.Event()
        running = watch.run(session, self.apply, self._stop)
        self.app.run_worker(self._watch(running), group="settings", exit_on_error=False)

    async def _watch(self, running: Awaitable[None]) -> None:
        try:
            await running
        except Exception as exc:  # e.g. out of inotify watches: the session goes on without
            self.app.notice(
                f"Settings are no longer watched: {type(exc).__name__}: {exc}", "warning"
            )

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def apply(self, report: SettingsReport) -> None:
        echo = ""
        if report.theme:
            self.app.choices.settings_say("theme", report.theme)
            if report.theme == self.app.theme:
                # The file now says what the user just chose (lathe saved it): no news.
                echo = f"Theme from settings: {report.theme}"
            self.app.apply_theme(report.theme)
        if report.keymap is not None:
            self.app.set_keymap(dict(report.keymap))
        for message in report.messages:
            if message != echo:
                self.app.notice(message)
        for problem in report.problems:
            self.app.notice(f"Settings problem: {problem}", "warning")
