"""Quitting the TUI closes the engine session (SessionEnd hooks, shells, MCP servers)."""

from __future__ import annotations

from typing import Any

from tests.tui.conftest import make_app


class ClosingSession:
    model = "m"
    session_id = "s"
    permission_mode = "default"
    tool_names = ("Read",)

    def __init__(self) -> None:
        self.closed_with: list[str] = []

    def set_permission_mode(self, mode: str) -> None: ...

    def interrupt(self) -> bool:
        return False

    async def run_turn(self, prompt: str) -> Any: ...

    async def close(self, reason: str = "exit") -> None:
        self.closed_with.append(reason)


async def test_quit_closes_the_session() -> None:
    session = ClosingSession()
    app = make_app(session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert session.closed_with == ["exit"]
