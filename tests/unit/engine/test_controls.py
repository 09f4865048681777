"""SessionPort.controls on a real session: what a program's front end asks beyond turns (agent
types it defines, hook callbacks it answers, MCP servers, usage per model), done by the engine."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from app.cli import CliOptions
from app.compose import build_session
from app.engine.api import AgentDefinition, HookCallback, HookRun, HookView, SessionPort
from app.hooks.calls import HookToolCall
from app.hooks.runner import CommandHookRunner
from tests.fakeapi.server import FakeAPI
from tests.support.engine import fake_env
from tools.abort import AbortSignal


@pytest.fixture
def session(tmp_path: Path) -> Iterator[SessionPort]:
    project = tmp_path / "project"
    project.mkdir()
    with FakeAPI() as fake:
        setup = build_session(
            CliOptions(), interactive=False, cwd=project, env=fake_env(fake), trusted=True
        )
        yield setup.session


def test_defined_agents_reach_the_tool_that_runs_them(session: SessionPort) -> None:
    reviewer = AgentDefinition("reviewer", "Reviews a change", "You review.", source="sdk")
    assert session.controls.define_agents([reviewer])
    assert "reviewer" in [a.name for a in session.controls.agents()]
    runner = next(t for t in session.status().tools if t == "Agent")
    # The pool the model is offered (and the executor runs) lists the new type.
    pool = session.pool  # type: ignore[attr-defined]
    executor_tools = session.deps.tools  # type: ignore[attr-defined]
    assert "reviewer: Reviews a change" in pool.find(runner).description()
    assert (
        "reviewer: Reviews a change"
        in next(t for t in executor_tools if t.name == runner).description()
    )


async def test_hook_callbacks_run_for_their_event_and_matcher(session: SessionPort) -> None:
    asked: list[tuple[str, Mapping[str, Any]]] = []

    async def answer(
        hook: HookView, payload: Mapping[str, Any], abort: AbortSignal | None
    ) -> HookRun:
        asked.append((hook.callback_id, payload))
        return HookRun(0, "{}", "")

    count, problems = session.controls.register_hook_callbacks(
        [
            HookCallback("PreToolUse", "Bash", "on-bash", 5),
            HookCallback("PreToolUse", "Read", "on-read"),
            HookCallback("NoSuchEvent", "", "lost"),
            HookCallback("PreToolUse", "(", "bad-matcher"),
        ],
        answer,
    )
    assert count == 2
    assert len(problems) == 2 and "NoSuchEvent" in problems[0] and "'('" in problems[1]
    runner = session.parts.session_hooks  # type: ignore[attr-defined]
    assert isinstance(runner, CommandHookRunner)
    await runner.pre_tool_use(HookToolCall("Bash", {"command": "ls"}, "toolu_1"), None)
    assert [cid for cid, _ in asked] == ["on-bash"]
    assert asked[0][1]["tool_name"] == "Bash" and asked[0][1]["tool_input"] == {"command": "ls"}
    # Registering again replaces the program's callbacks (the settings' hooks stay).
    count, _ = session.controls.register_hook_callbacks([], answer)
    assert count == 0 and not [h for h in runner.config.handlers if h.source == "sdk"]


def test_numbers_and_servers_without_mcp(session: SessionPort) -> None:
    controls = session.controls
    assert controls.mcp_servers() == [] and controls.mcp_server("nope") is None
    assert controls.usage_by_model() == {}
    assert controls.context_window() > 0 and controls.max_output_tokens > 0
    assert controls.context_usage().window == controls.context_window()
    status = session.status()
    assert (status.transcript_lost, status.bypass_disabled) == (0, False)
