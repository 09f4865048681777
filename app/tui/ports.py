"""What the TUI needs from the outside world, as small typed seams.

The App drives the session through the engine's `SessionPort` (app/engine/api.py) and consumes
its events through `LatheApp.handle_engine_event`, which the session gets as its sink.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from app.engine.api import CALL_CLOCK, EngineEvent, SessionPort

if TYPE_CHECKING:
    from app.tui.history import ReplayedHistory

# The App's sink: the session's events, and a resumed conversation's history in one piece.
EventSink = Callable[["EngineEvent | ReplayedHistory"], None]
SessionFactory = Callable[[EventSink], Awaitable[SessionPort]]


@dataclass(frozen=True)
class EarlyTurn:
    """The first turn, started before the App ran (`lathe PROMPT`: app/compose_tui.py sends the
    request before Textual is imported). The App takes the session as built, hands `attach` its
    sink (the events held so far come first, in order) and drives `turn` as if it sent it."""

    session: SessionPort
    turn: Awaitable[object]
    attach: Callable[[EventSink], None]


@dataclass(frozen=True)
class SettingsReport:
    """What a reload of the settings files found, for the screen (the rules went to the session
    already): a theme or keymap to apply (None: unchanged), what changed, what is broken."""

    theme: str | None = None
    keymap: Mapping[str, str] | None = None
    messages: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


class SettingsWatch(Protocol):
    """Watches the settings files while the session runs (app/compose_settings.py)."""

    def run(
        self,
        session: SessionPort,
        on_report: Callable[[SettingsReport], None],
        stop: asyncio.Event,
    ) -> Awaitable[None]: ...


@dataclass(frozen=True)
class SessionSummary:
    """One line of the resume picker."""

    session_id: str
    title: str  # its first prompt
    updated: str = ""  # when, as the picker shows it ("3 minutes ago")
    messages: int = 0
    branch: str = ""  # the git branch it was on


@dataclass
class TuiConfig:
    """Everything the App is configured with; tests pass fixed values (clock, folder, branch)."""

    folder: str = ""
    branch: str = ""
    model: str = ""
    permission_mode: str = "default"
    theme: str = "lathe-dark"
    user_theme_dir: str | None = None
    # F2's choice, kept in the user settings (`mouse = false`): start with the mouse released.
    mouse_captured: bool = True
    # Saves a UI choice (theme, mouse) to the user settings file; returns what went wrong, or
    # None. `settings_file` names that file on screen.
    save_setting: Callable[[str, str | bool], str | None] | None = None
    settings_file: str = ""
    initial_prompt: str | None = None
    offline_demo: bool = False
    # The half-second guard against keystrokes meant for the prompt answering a dialog.
    dialog_key_guard_s: float = 0.5
    quit_window_s: float = 2.0
    progress_placement: Literal["bottom", "top", "hidden"] = "bottom"
    progress_linger_s: float = 1.5
    progress_tick_s: float | None = 0.25
    # The busy line's repaint (spinner and elapsed time); None: no timer (snapshots).
    busy_tick_s: float | None = 0.1
    # Blocks kept as widgets (clickable); older ones are archived. Each live widget is layout work
    # on every append, and a screen shows far fewer than this.
    live_blocks: int = 24
    cursor_blink: bool = True
    # The engine's CALL_CLOCK (time.monotonic): the panel's running clocks subtract a call's
    # started_at from it, so both sides must be the one clock.
    clock: Callable[[], float] = CALL_CLOCK
    ask_trust_for: str | None = None
    on_trust: Callable[[str, bool], None] | None = None
    list_sessions: Callable[[], Sequence[SessionSummary]] | None = None
    # The prompts of this project's earlier sessions, oldest first (app/prompt_history.py): the
    # prompt's history starts with them. Read once, off the loop, after the first frame.
    past_prompts: Callable[[], Sequence[str]] | None = None
    on_resume: Callable[[str], None] | None = None
    # `lathe -r`: the resume picker before any session is built (Esc quits, as Claude Code's).
    pick_session_first: bool = False
    mcp_servers: Callable[[], Sequence[tuple[str, str]]] | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    # Watches the settings files once the session runs (None: no live reload, as in tests).
    settings_watch: SettingsWatch | None = None
    # Broken settings files (file:line:column: problem, and what is kept from each): the App
    # blocks on a dialog until the user reloads (`check_settings` finds none), exits or goes on.
    settings_problems: tuple[str, ...] = ()
    check_settings: Callable[[], Sequence[str]] | None = None
