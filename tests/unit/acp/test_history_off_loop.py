"""ACP's session/load replay builds the resumed history off the protocol loop (history() may
read files to rebuild resumed edits' diffs): the real engine session's history() is recorded
with the thread it ran on, and it must not be the loop's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from app.acp.session import AcpSession
from app.engine.api import EngineEvent
from tests.support.engine import make_session


class _NoClient:
    async def session_update(self, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("an empty history sends nothing")


async def test_the_replay_reads_the_history_in_a_worker_thread(
    fake_api: Any, project: Path
) -> None:
    session, _ = make_session(fake_api, project)
    threads: list[int] = []
    real = session.history

    def recorded() -> tuple[EngineEvent, ...]:
        threads.append(threading.get_ident())
        return real()

    session.history = recorded  # type: ignore[method-assign]
    acp = AcpSession(_NoClient(), None)  # type: ignore[arg-type]
    acp.session = session
    try:
        await acp.replay()
    finally:
        await session.close()
    assert len(threads) == 1 and threads[0] != threading.get_ident()
