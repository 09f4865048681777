"""The TUI's composition: read what the screen needs (folder, branch, theme, trust), build the
App, and hand it a factory that builds the engine's Session (app/compose.py) after the first
paint. The App itself (app/tui/) sees only the engine's front-end API."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.cli import CliOptions
from app.compose_options import cli_overrides, engine_options
from app.config.paths import config_dir, home_dir, project_dir
from app.config.ui_settings import user_settings_path
from app.config.watch import keymap_from, watch_settings
from app.engine.api import Notice, SessionPort
from app.tui.ports import EventSink, SessionSummary, SettingsReport, TuiConfig

if TYPE_CHECKING:
    from app.config.loader import CliOverrides, LoadedSettings
    from app.permissions.reload import SettingsChange, SettingsReloader
    from app.tui.app import LatheApp
    from app.tui.ports import EarlyTurn


def git_branch(folder: Path) -> str:
    """The current branch from .git/HEAD (no subprocess: this runs before the first frame)."""
    git = folder / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: PATH"
            pointer = git.read_text(encoding="utf-8").strip()
            git = (folder / pointer.removeprefix("gitdir:").strip()).resolve()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return head[:8]


def folder_label(folder: Path) -> str:
    home = str(home_dir())
    text = str(folder)
    return "~" + text[len(home) :] if text == home or text.startswith(home + os.sep) else text


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


class TuiSettings:
    """The settings files as this TUI loaded them. Loaded ONCE at start (make_config: theme,
    keymap, placement, problems); the session is built from that same load and the live watch
    takes it as its baseline. Read again only when the user asks (the broken-settings dialog's
    Reload) or a file changes (the watch), and the newest load is what a /resume builds from."""

    def __init__(self, start: Path, cli: CliOverrides) -> None:
        self.start = start
        self.cli = cli
        self.loaded: LoadedSettings | None = None

    def load(self) -> LoadedSettings:
        from app.config.loader import load_settings

        self.loaded = load_settings(self.start, self.cli)
        return self.loaded


async def build_session(
    opts: CliOptions,
    sink: EventSink,
    settings: TuiSettings | None = None,
    *,
    preload_rendering: bool = True,
) -> SessionPort:
    """Build the engine's Session for the TUI. Called on the App's loop after the first paint
    (and after the trust question), so importing the anthropic SDK does not delay the first frame.
    `settings`: what make_config loaded (None: the composition root loads the files itself); the
    session starts in the folder they were loaded from (make_app's `cwd`), not the process's."""

    from app.compose import build_session as build
    from app.engine.session import Session
    from app.engine.setup import SessionSetup

    def make() -> SessionSetup:
        loaded = settings.loaded if settings is not None else None
        start = settings.start if settings is not None else None
        setup = build(opts, interactive=True, cwd=start, sink=sink, settings=loaded)
        if preload_rendering:  # (the early turn's preloads after its request left: Textual)
            preload_answer_rendering()
        return setup

    # Building imports the SDK and reads settings: off the UI thread, so the screen stays live.
    setup = await asyncio.to_thread(make)
    session: Session = setup.session
    if preload_rendering:
        # The SDK's first stream parse, done now beside the idle UI rather than between the
        # first answer's first byte and its first word (app/model/stream_warmup.py).
        from app.model.stream_warmup import warm_stream_types

        warmup = asyncio.ensure_future(asyncio.to_thread(warm_stream_types))
        _WARMUPS.add(warmup)
        warmup.add_done_callback(_WARMUPS.discard)
    for warning in setup.warnings:
        sink(Notice(warning, "warning"))
    if setup.resumed is not None:
        from app.tui.history import ReplayedHistory

        # What came before a compaction is shown too (above its boundary): browsable history.
        # Built off the loop: replaying rebuilds resumed edits' diffs from the files on disk
        # (Tool.recorded_view), which can take seconds on large files.
        history = await asyncio.to_thread(session.history)
        sink(ReplayedHistory(history))
        count = len(setup.resumed.messages)
        sink(Notice(f"Resumed session {setup.resumed.session_id} ({count} messages)"))
    # Servers connect in the background: the first prompt never waits for a slow one, and
    # their tools join the pool as they come up.
    task = asyncio.get_running_loop().create_task(session.start_mcp())
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)
    return session


_BACKGROUND: set[asyncio.Task[None]] = set()


# The warm-ups running (a task nobody awaits is kept alive by a reference).
_WARMUPS: set[asyncio.Future[bool]] = set()


def preload_answer_rendering() -> None:
    """Import the markdown stack and build its parser (regexes compiled) here, off the UI thread,
    rather than when the first text delta of the first answer arrives: ~60 ms with bytecode
    cached, all of it between the request and the first word on screen."""
    from markdown_it import MarkdownIt

    import widgets.assistant_block  # noqa: F401

    MarkdownIt("gfm-like").parse("*a* `b` [c](d) https://e.example")


def make_config(
    opts: CliOptions, cwd: Path | None = None, settings: TuiSettings | None = None
) -> TuiConfig:
    """What the App is configured with, from the settings loaded once (into `settings`, which
    the session's build then uses: see TuiSettings)."""
    start = (cwd or Path.cwd()).resolve()
    project = project_dir(start)
    offline = not has_credentials() and not opts.model and not opts.model_script
    theme = "lathe-dark"
    keymap: dict[str, str] = {}
    placement: Literal["bottom", "top", "hidden"] = "bottom"
    mouse = True
    # A bad --permission-mode is reported when the session is built.
    cli = cli_overrides(engine_options(opts), strict=False)
    problems: tuple[str, ...] = ()
    files = settings if settings is not None else TuiSettings(start, cli)

    try:
        loaded = files.load()
        merged = loaded.merged()
        theme = merged.theme or theme
        keymap = keymap_from(loaded)
        placement = merged.progress_panel or placement
        mouse = merged.mouse if merged.mouse is not None else mouse
        problems = tuple(settings_report(loaded))
    except Exception as exc:  # a bug must not open the session as if the files were fine
        problems = (f"settings could not be checked: {type(exc).__name__}: {exc}",)

    def check() -> list[str]:
        # The user fixed a file and asked to reload: the session is built from this load.
        return settings_report(files.load())

    from app.permissions.trust import is_trusted, set_trusted

    return TuiConfig(
        folder=folder_label(start),
        branch=git_branch(project),
        model=opts.model or ("demo" if offline else os.environ.get("ANTHROPIC_MODEL", "")),
        permission_mode=opts.permission_mode or "default",
        theme=theme,
        user_theme_dir=str(config_dir() / "themes"),
        mouse_captured=mouse,
        save_setting=save_ui_choice,
        settings_file=folder_label(user_settings_path()),
        initial_prompt=opts.prompt,
        offline_demo=offline,
        ask_trust_for=None if is_trusted(project) else str(project),
        on_trust=lambda folder, yes: set_trusted(folder, yes),
        keymap=keymap,
        progress_placement=placement,
        settings_watch=FileSettingsWatch(
            lambda: _reloader(project, cli, lambda: is_trusted(project)), files
        ),
        settings_problems=problems,
        check_settings=check,
    )


def _reloader(project: Path, cli: CliOverrides, trusted: Callable[[], bool]) -> SettingsReloader:
    # The permission system loads with the watch, after the first frame, not before it.
    from app.permissions.reload import SettingsReloader

    return SettingsReloader(project, cli, trusted=trusted)


def save_ui_choice(key: str, value: str | bool) -> str | None:
    """The TUI's saver of UI choices: the user settings file, atomically, comments kept."""
    from app.config.ui_settings import UiSettingError, save_ui_setting

    try:
        save_ui_setting(key, value)
    except UiSettingError as exc:
        return str(exc)
    return None


def settings_report(loaded: LoadedSettings) -> list[str]:
    """The broken files' problems (file:line:column: what), then what is kept of each file."""
    lines = [str(p) for p in loaded.errors]
    for src in loaded.broken_sources:
        perms = src.settings.permissions if src.settings else None
        deny, ask = (len(perms.deny), len(perms.ask)) if perms else (0, 0)
        kept = (
            f"{deny} deny and {ask} ask rule{'s' if ask != 1 else ''} kept"
            if deny or ask
            else "no rule could be read from it"
        )
        lines.append(f"{src.path}: if you continue, {kept}")
    return lines


def run_tui(opts: CliOptions) -> int:
    from app.compose_tui_early import may_start_early, run_early

    if may_start_early(opts):
        app, result = asyncio.run(run_early(opts))
    else:
        app = make_app(opts)
        result = app.run()
    if app.exit_signal is not None:
        # The terminal may be gone: the final flush of stdout must not turn 129 into 120.
        from app.exit_signals import exit_code, silence_stdio

        silence_stdio()
        return exit_code(app.exit_signal)
    return result if isinstance(result, int) else 0


# Joins a session id and the line a /clear-ended conversation stops at in a picker key.
CLEARED_AT = "@"


def make_app(
    opts: CliOptions,
    cwd: Path | None = None,
    *,
    settings: TuiSettings | None = None,
    config: TuiConfig | None = None,
    early_turn: EarlyTurn | None = None,
) -> LatheApp:
    """The App as `lathe` runs it: its config, the session factory, the resume picker's seams.
    `settings` and `config` as `_early_app` made them (None: made here); `early_turn`: the
    first turn, already running."""
    from app.tui.app import LatheApp

    start = (cwd or Path.cwd()).resolve()
    settings = settings or TuiSettings(start, cli_overrides(engine_options(opts), strict=False))
    config = config or make_config(opts, start, settings)
    project = project_dir(start)

    async def factory(sink: EventSink) -> SessionPort:
        return await build_session(opts, sink, settings)

    app = LatheApp(config, session_factory=factory, early_turn=early_turn)

    def list_saved() -> list[SessionSummary]:
        from app.transcript import cleared_parts, list_sessions
        from app.tui.screens.resume import relative_time

        now = time.time()
        current = app.session.session_id if app.session is not None else None
        out: list[SessionSummary] = []
        # Past sessions only: not this one (it is open here), not one nobody spoke in. This
        # one's conversations that a /clear ended are listed (tui-r5 F3): Claude Code's /clear
        # starts a new session, so its /resume lists the conversation just cleared.
        for s in list_sessions(project):
            when = relative_time(s.modified, now)
            if s.messages and s.session_id != current:
                out.append(
                    SessionSummary(
                        s.session_id, s.first_prompt or "(no prompt)", when, s.messages, s.branch
                    )
                )
            try:
                parts = cleared_parts(s.path)
            except OSError:
                continue
            # What a /clear ended is listed too (newest first), as Claude Code lists it: the
            # picker's key names the line it ends at, and resuming forks the session there.
            for part in reversed(parts):
                key = f"{part.session_id}{CLEARED_AT}{part.until}"
                title = part.first_prompt or "(no prompt)"
                out.append(SessionSummary(key, title, when, part.messages, s.branch))
        return out

    def resume(session_id: str) -> None:
        # A new Session on the chosen transcript replaces the current one (which is closed).
        session_id, _, until = session_id.partition(CLEARED_AT)
        opts.resume, opts.continue_session = session_id, False
        # A conversation a /clear ended goes on in a new session holding it (the old file keeps
        # the /clear and what came after); a whole session is resumed in place.
        opts.resume_at, opts.fork_session = (until, True) if until else (None, False)
        old = app.session
        app.session = None
        app.main.conversation.clear_blocks()
        if old is not None:
            app.run_worker(old.close(), exit_on_error=False)
        app.call_after_refresh(app._start_session)

    config.list_sessions = list_saved
    config.on_resume = resume

    def earlier_prompts() -> list[str]:
        from app.prompt_history import past_prompts

        return past_prompts(project)

    config.past_prompts = earlier_prompts
    if opts.resume_picker and not opts.prompt:
        # `lathe -r`: the picker first, and the one session chosen is the one built.
        config.pick_session_first = True
    return app


# -- live settings: the files watched, the rules to the session, a report to the App ----------


def report_of(change: SettingsChange) -> SettingsReport:
    return SettingsReport(
        theme=change.theme,
        keymap=None if change.keymap is None else dict(change.keymap),
        messages=tuple(change.messages),
        problems=tuple(change.problems),
    )


class FileSettingsWatch:
    """The TUI's SettingsWatch on the real files (app/tui/ports.py has the protocol)."""

    def __init__(
        self,
        reloader: SettingsReloader | Callable[[], SettingsReloader],
        files: TuiSettings | None = None,
    ) -> None:
        # A factory is called when the watch starts (after the first frame): the reloader's
        # module imports the whole permission system.
        self._reloader = reloader
        # The start-up load: the baseline (not read again), and kept current for a /resume.
        self.files = files

    @property
    def reloader(self) -> SettingsReloader:
        from app.permissions.reload import SettingsReloader

        if not isinstance(self._reloader, SettingsReloader):
            self._reloader = self._reloader()
        return self._reloader

    async def run(
        self,
        session: SessionPort,
        on_report: Callable[[SettingsReport], None],
        stop: asyncio.Event,
    ) -> None:
        reloader = self.reloader
        files = self.files
        baseline = files.loaded if files is not None else None
        await asyncio.to_thread(reloader.prime, baseline)

        async def changed() -> None:
            change = await asyncio.to_thread(reloader.reload)
            if files is not None:
                files.loaded = reloader.loaded
            if change.context is not None:
                # Merged by the engine with the rules as they are now: the mode or a session
                # rule may have changed while the files were read.
                session.replace_rules(change.context)
            on_report(report_of(change))

        await watch_settings(reloader, changed, stop=stop)
