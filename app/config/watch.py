"""Watching the settings files: which folders to watch, and the watchfiles loop around a reload.

The reload itself (what changed, the rebuilt rule context) is app/permissions/reload.py; this
module knows only files and the settings values that are not rules (theme, keymap).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

from app.config.loader import LoadedSettings


def keymap_from(loaded: LoadedSettings) -> dict[str, str]:
    """Every source's `[keymap]` merged (higher sources win per binding id). A malformed table
    makes its file a reported problem (file and line) like any other bad value."""
    return {k: v.replace(" ", "") for k, v in loaded.merged().keymap.items() if v.strip()}


def theme_from(loaded: LoadedSettings) -> str | None:
    return loaded.merged().theme


def _real_paths(paths: Iterable[str | Path]) -> set[str]:
    # Symlinked config folders (dotfile managers) report events under the real path.
    return {os.path.realpath(p) for p in paths}


def watch_roots(paths: Sequence[Path]) -> list[Path]:
    """The folders to watch: each file's folder, or its nearest existing ancestor while the
    folder does not exist (so creating `.lathe/settings.toml` is noticed too)."""
    roots: list[Path] = []
    for path in paths:
        folder = path.parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        if folder not in roots:
            roots.append(folder)
    return roots


class Watched(Protocol):
    """What the watch loop needs: the settings files to watch (SettingsReloader has it)."""

    def paths(self) -> list[Path]: ...


async def watch_settings(
    reloader: Watched,
    on_change: Callable[[], Awaitable[object] | None],
    *,
    stop: asyncio.Event | None = None,
    debounce_ms: int = 150,
    force_polling: bool | None = None,
) -> None:
    """Call `on_change` after a batch of changes to any settings file, until `stop` is set.

    Folders are watched non-recursively (a project folder can be huge); when a missing settings
    folder appears, the watch is rebuilt to include it.
    """
    from watchfiles import awatch

    stop = stop or asyncio.Event()
    while not stop.is_set():
        targets = _real_paths(reloader.paths())
        roots = watch_roots(reloader.paths())
        folders_missing = any(not p.parent.is_dir() for p in reloader.paths())
        rebuild = False
        async for changes in awatch(
            *roots,
            watch_filter=None,
            debounce=debounce_ms,
            step=50,
            stop_event=stop,
            recursive=False,
            force_polling=force_polling,
            poll_delay_ms=100,
        ):
            touched = _real_paths(path for _, path in changes)
            if touched & targets:
                result = on_change()
                if result is not None:
                    await result
            if folders_missing and watch_roots(reloader.paths()) != roots:
                rebuild = True
                break
        if not rebuild:
            return
        # The new folder's file may have been written before the new watch began.
        result = on_change()
        if result is not None:
            await result
