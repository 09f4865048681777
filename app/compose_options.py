"""The command line's options in the engine's and the settings' terms.

Apart from app/compose.py (which re-exports both) because the TUI needs them before its first
frame, where the composition root's imports (the engine, the permission system, the hooks, the
tools) would cost about a third of what it imports (issue 18). Light: the settings' types only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.config.loader import CliOverrides
from app.config.models import PERMISSION_MODES, PermissionMode
from app.engine.options import EngineOptions

if TYPE_CHECKING:
    from app.cli import CliOptions


def engine_options(opts: CliOptions | EngineOptions) -> EngineOptions:
    """The command line's options in the engine's terms."""
    if isinstance(opts, EngineOptions):
        return opts
    return EngineOptions(
        model=opts.model,
        model_script=opts.model_script,
        permission_mode=opts.permission_mode,
        allowed_tools=tuple(opts.allowed_tools),
        disallowed_tools=tuple(opts.disallowed_tools),
        settings=opts.settings,
        add_dirs=tuple(opts.add_dirs),
        max_turns=opts.max_turns,
        continue_session=opts.continue_session,
        resume=opts.resume,
        resume_at=opts.resume_at,
        fork_session=opts.fork_session,
        bare=opts.bare,
        include_partial_messages=opts.include_partial_messages,
        # Every mode honours --setting-sources, not only the SDK's stream-json one (ext-r4 F19:
        # plain `-p` ran a project's hooks the flag had left out).
        setting_sources=opts.sdk.setting_sources,
    )


def _mode(text: str) -> PermissionMode:
    for mode in PERMISSION_MODES:
        if mode == text:
            return mode
    # Not a mode: the permission system's own parser says so, in its words.
    from app.permissions.modes import parse_mode

    return parse_mode(text)


def cli_overrides(opts: EngineOptions, *, strict: bool = True) -> CliOverrides:
    """The options' part of the settings (the highest source but policy). Not `strict`: a bad
    --permission-mode is left out (it is reported when the session is built)."""
    try:
        mode = _mode(opts.permission_mode) if opts.permission_mode else None
    except Exception:
        if strict:
            raise
        mode = None
    return CliOverrides(
        settings_file=opts.settings,
        allowed_tools=opts.allowed_tools,
        disallowed_tools=opts.disallowed_tools,
        permission_mode=mode,
        add_dirs=tuple(str(Path(d).expanduser().resolve()) for d in opts.add_dirs),
        setting_sources=opts.setting_sources,
    )
