"""Resuming never reads files on the TUI's event loop (review round 3, defect 1).

The replay rebuilds a resumed edit's diff from the file on disk (Tool.recorded_view): up to
2 MiB read and diffed per call. compose_tui.build_session used to call session.history() on the
App's loop after building the session in a thread. Structural check, not a timing: the thread
recorded_view runs in is not the loop's.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.compose_tui import build_session as build_tui_session
from app.engine.api import answers
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.fakeapi.server import FakeAPI
from tests.support.engine import make_session
from tools.write import WriteTool

pytestmark = pytest.mark.timeout(60)


async def test_resume_replays_the_history_off_the_tui_loop(
    fake_api: FakeAPI, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = project / "notes.txt"
    fake_api.load(
        [
            turn_of([tool_use_block("Write", {"file_path": str(notes), "content": "a\n"}, "w")]),
            text_turn("done"),
        ]
    )
    # The user denies the Write: a denied edit's diff is rebuilt from its input on resume.
    session, events = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    turn = asyncio.ensure_future(session.run_turn("write it"))
    for _ in range(400):
        if events.prompts:
            break
        await asyncio.sleep(0.025)
    assert events.prompts[0].answer(answers.deny("", end_turn=True))
    await asyncio.wait_for(turn, 10)
    await session.close()

    threads: list[threading.Thread] = []
    real = WriteTool.recorded_view

    def recorded_view(self: WriteTool, input: Any, applied: bool, cwd: str) -> Any:
        threads.append(threading.current_thread())
        return real(self, input, applied, cwd)

    monkeypatch.setattr(WriteTool, "recorded_view", recorded_view)
    monkeypatch.chdir(project)
    loop_thread = threading.current_thread()
    resumed = await build_tui_session(CliOptions(continue_session=True), lambda event: None)
    try:
        assert threads, "the resumed Write's diff was not rebuilt"
        assert all(t is not loop_thread for t in threads)
    finally:
        await resumed.close()
