"""Quitting the TUI closes the engine session (SessionEnd hooks, shells, MCP servers)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.tui.conftest import ScriptedSession, make_app


@dataclass
class ClosingSession(ScriptedSession):
    closed_with: list[str] = field(default_factory=list)

    async def close(self, reason: str = "exit") -> None:
        self.closed_with.append(reason)


async def test_quit_closes_the_session() -> None:
    app = make_app()
    session = ClosingSession(app)
    app.session = session
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert session.closed_with == ["exit"]
