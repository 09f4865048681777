"""Settings changes applied to the running App: rules to the session (through its port), theme,
keymap, and a notice in the conversation of what changed or what is broken (see settings_watch)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the watch starts, after the first paint
    from app.tui.app import LatheApp
    from app.tui.settings_watch import SettingsChange, SettingsReloader


class LiveSettings:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        reloader = self.app.config.settings_reloader
        if reloader is None or self._stop is not None:
            return
        self._stop = asyncio.Event()
        self.app.run_worker(
            self._watch(reloader, self._stop), group="settings", exit_on_error=False
        )

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _watch(self, reloader: SettingsReloader, stop: asyncio.Event) -> None:
        from app.tui.settings_watch import watch_settings

        await asyncio.to_thread(reloader.prime)
        try:
            await watch_settings(reloader, lambda: self.reload(reloader), stop=stop)
        except Exception as exc:  # e.g. out of inotify watches: the session goes on without
            self.app.notice(
                f"Settings are no longer watched: {type(exc).__name__}: {exc}", "warning"
            )

    async def reload(self, reloader: SettingsReloader) -> SettingsChange:
        change = await asyncio.to_thread(reloader.reload)
        self.apply(change)
        return change

    def apply(self, change: SettingsChange) -> None:
        session = self.app.session
        if change.context is not None and session is not None:
            # Merged by the engine, on the App's loop, with the rules as they are now: the mode
            # or a session rule may have changed while the files were read.
            session.replace_rules(change.context)
        if change.theme:
            self.app.apply_theme(change.theme)
        if change.keymap is not None:
            self.app.set_keymap(change.keymap)
        for message in change.messages:
            self.app.notice(message)
        for problem in change.problems:
            self.app.notice(f"Settings problem: {problem}", "warning")
