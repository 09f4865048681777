"""The TUI on a real Session with a subagent: the Agent call's row in the progress panel follows
the subagent's tools, its permission question reaches the dialog labelled with the agent, and
the subagent's own tool calls stay out of the conversation (they are nested in the Agent call)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.compose import build_session
from app.model.scenario import text_turn, tool_use_block, turn_of
from app.tui.screens.permission import PermissionScreen
from tests.support.engine import fake_env
from tests.support.subagents import route
from tests.tui.conftest import make_app
from widgets.tool_block import ToolBlock


def real_app(fake: Any, repo: Path) -> Any:
    app = make_app(dialog_key_guard_s=0.0)

    async def factory(sink: Any) -> Any:
        # interactive: questions become PermissionRequested events, as in `lathe`.
        setup = build_session(
            CliOptions(), interactive=True, cwd=repo, env=fake_env(fake), sink=sink, trusted=True
        )
        return setup.session

    app.session_factory = factory
    return app


async def wait_until(pilot: Any, check: Any, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await pilot.pause(0.05)


async def test_subagent_progress_and_permission_in_the_tui(fake_api, project) -> None:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\n")
    route(
        fake_api,
        {
            "do the thing": [
                turn_of(
                    [
                        tool_use_block(
                            "Agent",
                            {"description": "make a file", "prompt": "SUB-T touch it"},
                            "toolu_agent",
                        )
                    ]
                ),
                text_turn("all done"),
            ],
            "SUB-T": [
                turn_of([tool_use_block("Read", {"file_path": str(project / "a.txt")}, "t_r")]),
                turn_of([tool_use_block("Bash", {"command": "touch made.txt"}, "t_b")]),
                text_turn("made it"),
            ],
        },
    )
    app = real_app(fake_api, project)
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        app.submit_prompt("do the thing")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        prompt = app.screen.prompt
        assert prompt.tool_name == "Bash" and prompt.agent == "general-purpose agent"
        assert prompt.title.startswith("(general-purpose agent) ")
        row = app.main.progress.rows["toolu_agent"]
        assert row.state == "running" and row.name == "Agent"
        assert row.summary == "general-purpose: make a file"
        assert "Bash touch made.txt" in row.last_line and "2 tool uses" in row.last_line
        await pilot.pause()  # drawn: a key read before the dialog is on screen never answers it
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.turn_running)
        assert (project / "made.txt").exists()
        blocks = {b.state.tool_use_id for b in app.main.conversation.query(ToolBlock)}
        assert blocks == {"toolu_agent"}  # the subagent's Read and Bash are not the session's
