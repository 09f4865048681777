"""Settings changes applied to the running App: rules to the session's decider, theme, keymap,
and a notice in the conversation of what changed or what is broken (see settings_watch)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from app.tui.app_base import AppBase

if TYPE_CHECKING:  # imported when the watch starts, after the first paint
    from app.permissions import PermissionContext
    from app.tui.settings_watch import SettingsChange, SettingsReloader


class _Decider(Protocol):
    @property
    def context(self) -> PermissionContext: ...

    def set_context(self, context: PermissionContext) -> None: ...


class LiveSettings(AppBase):
    _settings_stop: asyncio.Event | None = None

    def session_decider(self) -> _Decider | None:
        parts = getattr(self.session, "parts", None)
        extra = getattr(parts, "extra", None)
        decider = extra.get("decider") if isinstance(extra, dict) else None
        if decider is None or not hasattr(decider, "set_context"):
            return None
        return decider  # type: ignore[no-any-return]

    def start_settings_watch(self) -> None:
        reloader = self.config.settings_reloader
        if reloader is None or self._settings_stop is not None:
            return
        self._settings_stop = asyncio.Event()
        self.run_worker(
            self._watch_settings(reloader, self._settings_stop),
            group="settings",
            exit_on_error=False,
        )

    def stop_settings_watch(self) -> None:
        if self._settings_stop is not None:
            self._settings_stop.set()

    async def _watch_settings(self, reloader: SettingsReloader, stop: asyncio.Event) -> None:
        from app.tui.settings_watch import watch_settings

        await asyncio.to_thread(reloader.prime)
        try:
            await watch_settings(reloader, lambda: self.reload_settings(reloader), stop=stop)
        except Exception as exc:  # e.g. out of inotify watches: the session goes on without
            self.notice(f"Settings are no longer watched: {type(exc).__name__}: {exc}", "warning")

    async def reload_settings(self, reloader: SettingsReloader) -> SettingsChange:
        change = await asyncio.to_thread(reloader.reload)
        self.apply_settings_change(change)
        return change

    def apply_settings_change(self, change: SettingsChange) -> None:
        from app.tui.settings_watch import merge_live

        decider = self.session_decider()
        if change.context is not None and decider is not None:
            # Merged here, on the App's loop, with the context as it is now: the mode or a
            # session rule may have changed while the files were read.
            decider.set_context(merge_live(change.context, decider.context))
        if change.theme:
            self.apply_theme(change.theme)
        if change.keymap is not None:
            self.set_keymap(change.keymap)
        for message in change.messages:
            self.notice(message)
        for problem in change.problems:
            self.notice(f"Settings problem: {problem}", "warning")
