"""Connects the `statusLine` setting's command to the status bar: every change of what the bar
shows (model, mode, tokens, cost) is the command's input; its first line is the bar's text."""

from __future__ import annotations

import time

from app import __version__
from app.engine.api import SessionPort, StatusLineCommand, status_payload
from widgets.status_bar import StatusBar, StatusInfo


def attach_status_line(bar: StatusBar, session: SessionPort) -> StatusLineCommand | None:
    command = session.status_line_command()
    if command is None:
        return None
    status = session.status()
    project, cwd = status.project_dir, status.cwd or status.project_dir
    started = time.monotonic()
    runner = StatusLineCommand(command, lambda line: bar.set(custom=line), cwd=project)

    def changed(info: StatusInfo) -> None:
        runner.changed(
            status_payload(
                session_id=session.session_id,
                transcript_path=status.transcript_path,
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
