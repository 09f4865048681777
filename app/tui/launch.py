"""Start the TUI: read what the screen needs (folder, branch, theme, trust), build the App, and
hand it a factory that builds the engine's Session after the first paint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from app.config.paths import config_dir, home_dir, project_dir
from app.engine.events import Notice
from app.tui.ports import EventSink, SessionPort, TuiConfig

if TYPE_CHECKING:
    from app.cli import CliOptions
    from app.execution.interfaces import PermissionPrompt


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


async def build_session(opts: CliOptions, sink: EventSink) -> SessionPort:
    """Build the engine's Session for the TUI. Called on the App's loop after the first paint
    (and after the trust question), so importing the anthropic SDK does not delay the first frame."""
    import asyncio

    from app.engine.prompter import EventPrompter
    from app.engine.setup import build_session as build

    def make() -> tuple[SessionPort, list[str]]:
        holder: dict[str, EventPrompter] = {}

        class _Deferred:
            async def ask(self, prompt: PermissionPrompt) -> None:
                await holder["p"].ask(prompt)

        setup = build(opts, interactive=True, sink=sink, prompter=_Deferred())
        decider = setup.session.parts.extra["decider"]
        holder["p"] = EventPrompter(sink, decider)
        return setup.session, setup.warnings

    # Building imports the SDK and reads settings: off the UI thread, so the screen stays live.
    session, warnings = await asyncio.to_thread(make)
    for warning in warnings:
        sink(Notice(warning, "warning"))
    return session


def make_config(opts: CliOptions, cwd: Path | None = None) -> TuiConfig:
    start = (cwd or Path.cwd()).resolve()
    project = project_dir(start)
    offline = not has_credentials() and not opts.model and not opts.model_script
    theme = "lathe-dark"
    try:
        from app.config.loader import load_settings

        merged = load_settings(start).merged()
        theme = merged.theme or theme
    except Exception:  # a broken settings file is reported by the session, not here
        pass
    from app.permissions.trust import is_trusted, set_trusted

    return TuiConfig(
        folder=folder_label(start),
        branch=git_branch(project),
        model=opts.model or ("demo" if offline else os.environ.get("ANTHROPIC_MODEL", "")),
        permission_mode=opts.permission_mode or "default",
        theme=theme,
        user_theme_dir=str(config_dir() / "themes"),
        initial_prompt=opts.prompt,
        offline_demo=offline,
        ask_trust_for=None if is_trusted(project) else str(project),
        on_trust=lambda folder, yes: set_trusted(folder, yes),
    )


def run_tui(opts: CliOptions) -> int:
    from app.tui.app import LatheApp

    config = make_config(opts)

    async def factory(sink: EventSink) -> SessionPort:
        return await build_session(opts, sink)

    app = LatheApp(config, session_factory=factory)
    result = app.run()
    return result if isinstance(result, int) else 0
