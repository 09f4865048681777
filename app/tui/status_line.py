"""Connects the `statusLine` setting's command to the status bar: every change of what the bar
shows (model, mode, tokens, cost) is the command's input; its first line is the bar's text."""

from __future__ import annotations

import time
from typing import Any

from app import __version__
from app.engine.status_line import StatusLineCommand, status_command, status_payload
from widgets.status_bar import StatusBar, StatusInfo


def attach_status_line(bar: StatusBar, session: Any) -> StatusLineCommand | None:
    parts = getattr(session, "parts", None)
    extra = getattr(parts, "extra", {}) or {}
    settings = extra.get("settings")
    command = status_command(getattr(settings, "status_line", None))
    if command is None:
        return None
    context = getattr(session, "context", None)
    project = str(extra.get("project_dir") or getattr(context, "project_dir", "") or ".")
    cwd = str(getattr(context, "cwd", "") or project)
    transcript = getattr(getattr(parts, "transcript", None), "path", "")
    started = time.monotonic()
    runner = StatusLineCommand(command, lambda line: bar.set(custom=line), cwd=project)

    def changed(info: StatusInfo) -> None:
        runner.changed(
            status_payload(
                session_id=session.session_id,
                transcript_path=str(transcript),
                cwd=cwd,
                project_dir=project,
                model=info.model or session.model,
                version=__version__,
                cost_usd=info.cost_usd,
                duration_ms=int((time.monotonic() - started) * 1000),
            )
        )

    bar.on_change = changed
    changed(bar.info)
    return runner
