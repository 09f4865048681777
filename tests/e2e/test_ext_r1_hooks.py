"""ext-r1 hook findings through the real `lathe -p`, real hook processes and the HTTP fake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _settings(project: Path, hooks: dict[str, Any]) -> None:
    (project / ".git").mkdir(exist_ok=True)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _agent_call() -> Any:
    return turn_of(
        [
            tool_use_block(
                "Agent",
                {"description": "d", "prompt": "P", "subagent_type": "Explore"},
                "toolu_a",
            )
        ]
    )


@pytest.mark.parametrize("matcher", ["Task", "Task|Bash", "Ta.k"])
def test_a_task_matcher_guards_the_agent_tool(fake_api, project, matcher):
    seen = project / "seen.json"
    hook = f"cat > {seen}; echo 'no subagents here' >&2; exit 2"
    _settings(
        project,
        {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]},
    )
    fake_api.load([_agent_call(), text_turn("SUBAGENT-RAN"), text_turn("done")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(seen.read_text())["tool_name"] == "Agent"
    assert len(fake_api.bodies()) == 2  # the subagent never asked the model
    assert "no subagents here" in json.dumps(_tool_result(fake_api, "toolu_a"))
