"""Build real sessions against the HTTP fake of the API, and collect what they emit."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import EngineEvent, PermissionQuestion, PermissionRequested, ToolCallUpdated
from app.engine.session import Session
from tests.fakeapi.server import FakeAPI


@dataclass
class Collector:
    events: list[EngineEvent] = field(default_factory=list)
    prompts: list[PermissionQuestion] = field(default_factory=list)

    def __call__(self, event: EngineEvent) -> None:
        self.events.append(event)
        if isinstance(event, PermissionRequested):
            self.prompts.append(event.question)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def calls(self, change: str) -> list[Any]:
        """The tool-call views of one kind of change ("queued", "started", "finished", ...)."""
        return [e.view for e in self.of(ToolCallUpdated) if e.change == change]


def fake_env(fake: FakeAPI, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.url, LATHE_RETRY_BASE_MS="5", **extra
    )
    return env


def make_session(
    fake: FakeAPI,
    project: Path,
    *,
    interactive: bool = False,
    opts: CliOptions | None = None,
    monkeypatch: Any = None,
) -> tuple[Session, Collector]:
    collector = Collector()
    env = fake_env(fake)
    if monkeypatch is not None:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
    setup = build_session(
        opts or CliOptions(),
        interactive=interactive,
        cwd=project,
        env=env,
        sink=collector,
        trusted=True,
    )
    return setup.session, collector
