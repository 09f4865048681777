"""`lathe PROMPT`: the TUI's first request before its first frame (issue 18).

In a trusted folder with sound settings and an API key, the session is built and its first turn
started as `lathe -p` does; once the request is built, Textual, the App and the markdown stack
import on a thread while the loop sends the request and holds the answer's events; after its
first paint the App adopts the session and the running turn (app/tui/ports.py's EarlyTurn).
Under the GIL this moves CPU rather than removing it; what it gains is the overlap of the
answer's wait (the model's first token) with the UI's start.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import CliOptions
from app.compose_options import cli_overrides, engine_options
from app.compose_tui import (
    TuiSettings,
    build_session,
    has_credentials,
    make_app,
    make_config,
    preload_answer_rendering,
)
from app.engine.api import EngineEvent, RequestStarted, SessionPort
from app.tui.ports import EventSink

if TYPE_CHECKING:
    from app.tui.app import LatheApp
    from app.tui.history import ReplayedHistory
    from app.tui.ports import EarlyTurn


def may_start_early(opts: CliOptions, env: Mapping[str, str] | None = None) -> bool:
    """Whether the TUI's first turn may start before Textual loads: a prompt (not a slash
    command) for the API, no session to choose or resume. LATHE_TUI_EARLY_TURN=0 turns it off.
    Whether the folder is trusted and the settings sound is known only from the files
    (`_early_app`)."""
    environ = os.environ if env is None else env
    if environ.get("LATHE_TUI_EARLY_TURN", "").strip().lower() in ("0", "false", "no", "off"):
        return False
    prompt = (opts.prompt or "").strip()
    return bool(
        prompt
        and not prompt.startswith("/")
        and has_credentials()
        and not (opts.resume or opts.resume_picker or opts.continue_session)
    )


class HeldEvents:
    """The sink of a session built before the App exists: events are held, in order, until
    `attach` gives the App's sink, then passed straight through."""

    def __init__(self) -> None:
        self._held: list[EngineEvent | ReplayedHistory] = []
        self._sink: EventSink | None = None
        self.request_started = False

    def __call__(self, event: EngineEvent | ReplayedHistory) -> None:
        if isinstance(event, RequestStarted):
            self.request_started = True
        if self._sink is None:
            self._held.append(event)
        else:
            self._sink(event)

    def attach(self, sink: EventSink) -> None:
        held, self._held = self._held, []
        for event in held:
            sink(event)
        self._sink = sink


async def until_request_left(
    events: HeldEvents, turn: asyncio.Future[object], limit: float = 0.5
) -> None:
    """Until the turn waits on the network with its request built (or ended, or `limit`
    seconds): Textual's import, which comes next on another thread, then takes no CPU from the
    request's building. Waiting shows as rounds of the loop in which this thread does nothing:
    three in a row once the request started (an SDK checkpoint between two steps of work is
    one round)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    idle = 0
    while idle < 3 and not turn.done() and loop.time() < deadline:
        before = time.thread_time()
        await asyncio.sleep(0)
        idle = idle + 1 if events.request_started and time.thread_time() - before < 5e-4 else 0


async def run_early(opts: CliOptions) -> tuple[LatheApp, object]:
    """The TUI on this loop, its first turn started before the App (see `_early_app`)."""
    app, started = await _early_app(opts)
    try:
        result = await app.run_async()
    finally:
        if app.early_turn is not None and started is not None:
            # Quit before the first frame took the turn over: end it as the App would.
            session, turn = started
            turn.cancel()
            try:
                await asyncio.wait_for(session.close(), 5)
            except Exception as exc:
                from app import debuglog

                debuglog.record("tui", "the early session's close raised or timed out", exc)
    return app, result


async def _early_app(
    opts: CliOptions,
) -> tuple[LatheApp, tuple[SessionPort, asyncio.Future[object]] | None]:
    """`lathe PROMPT` in a trusted folder with sound settings: the session is built and its
    first request sent as `lathe -p` does, then Textual and the App's modules load on a thread
    while this loop sends the request and reads the answer (held for the App). On the API the
    model's first token takes longer than the whole UI's start, which it now overlaps. Anything
    else (a trust question, broken settings, the offline demo, a session that fails to build)
    starts as before: the App builds the session after its first paint and says what failed."""
    from app.tui.ports import EarlyTurn

    start = Path.cwd().resolve()
    settings = TuiSettings(start, cli_overrides(engine_options(opts), strict=False))
    config = make_config(opts, start, settings)
    early: EarlyTurn | None = None
    started: tuple[SessionPort, asyncio.Future[object]] | None = None
    if config.ask_trust_for is None and not config.settings_problems and not config.offline_demo:
        events = HeldEvents()
        try:
            session = await build_session(opts, events, settings, preload_rendering=False)
        except Exception as exc:  # the App builds it again after its first frame and says why
            from app import debuglog

            debuglog.record("tui", "the early session did not build", exc)
        else:
            turn: asyncio.Future[object] = asyncio.ensure_future(
                session.run_turn(opts.prompt or "")
            )
            early = EarlyTurn(session, turn, events.attach)
            started = (session, turn)
            await until_request_left(events, turn)
    await asyncio.to_thread(_load_ui)
    return make_app(opts, start, settings=settings, config=config, early_turn=early), started


def _load_ui() -> None:
    """Textual, the App's modules and the markdown stack (on a thread: see `_early_app`)."""
    import app.tui.app  # noqa: F401

    preload_answer_rendering()
