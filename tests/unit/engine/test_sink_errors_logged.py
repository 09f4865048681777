"""A front end whose sink raises must not break the conversation, and must not vanish either: the
exception goes to the debug log (LATHE_LOG), as every exception lathe catches and goes on from."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import EngineEvent, Notice
from tests.fakeapi.server import FakeAPI
from tests.support.engine import fake_env


def test_a_raising_sink_is_logged_and_the_session_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "debug.log"
    monkeypatch.setenv("LATHE_LOG", str(log))
    project = tmp_path / "project"
    project.mkdir()

    def broken(event: EngineEvent) -> None:
        raise RuntimeError("the widget is gone")

    with FakeAPI() as fake:
        setup = build_session(
            CliOptions(),
            interactive=False,
            cwd=project,
            env=fake_env(fake),
            sink=broken,
            trusted=True,
        )
        setup.session.emit(Notice("hello", "info"))
    text = log.read_text(encoding="utf-8")
    assert "sink raised on Notice" in text and "the widget is gone" in text


def test_a_raising_session_end_hook_is_logged_and_the_close_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "debug.log"
    monkeypatch.setenv("LATHE_LOG", str(log))
    project = tmp_path / "project"
    project.mkdir()
    with FakeAPI() as fake:
        setup = build_session(
            CliOptions(), interactive=False, cwd=project, env=fake_env(fake), trusted=True
        )
        session = setup.session
        hooks = session.parts.session_hooks
        assert hooks is not None

        async def broken_end(reason: str, context: object = None) -> None:
            raise RuntimeError("the end hook blew up")

        # The fault injected where a hook runner can fail (its process, its output's parse).
        monkeypatch.setattr(hooks, "session_end", broken_end)

        async def run() -> None:
            await session.start()
            await session.close()  # must not raise

        asyncio.run(run())
    text = log.read_text(encoding="utf-8")
    assert "SessionEnd hook raised" in text and "the end hook blew up" in text
