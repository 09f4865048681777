"""`lathe -p`: the composition of the headless front end (the face layer, beside compose_tui)."""

from __future__ import annotations

from collections.abc import Callable

from app import startup_gc
from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import SessionPort
from app.engine.events import EngineEvent


def run_print(opts: CliOptions) -> int:
    """The headless front end on a non-interactive session."""
    from app.headless import HeadlessRun, run_headless

    def build(sink: Callable[[EngineEvent], None]) -> tuple[SessionPort, list[str]]:
        try:
            setup = build_session(opts, interactive=False, sink=sink)
        finally:
            startup_gc.resume()
        return setup.session, setup.warnings

    return run_headless(HeadlessRun(opts.prompt or "", opts.output_format), build)
