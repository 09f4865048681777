"""`lathe -p` with the agents folder of a real public project (21st-dev/1code's .claude/agents,
tests/fixtures/claude_setups/README.md): the Agent tool offers its agent types, a subagent runs
with the definition's tools, model and prompt, and stream-json nests its messages under the
Agent call with `parent_tool_use_id`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe, lines
from tests.support.subagents import requests_of, route

SETUPS = Path(__file__).parent.parent / "fixtures" / "claude_setups"


def test_a_real_agents_folder_runs_its_agent_and_nests_its_messages(fake_api, project):
    (project / ".git").mkdir()
    shutil.copytree(SETUPS / "1code-agents" / ".claude", project / ".claude")
    (project / "main.ts").write_text("export const router = createTRPCRouter({})\n")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Agent",
                        {
                            "description": "find the router",
                            "prompt": "Where is the tRPC router defined?",
                            "subagent_type": "repo-explorer",
                        },
                        "toolu_agent",
                    )
                ]
            ),
            turn_of([tool_use_block("Grep", {"pattern": "createTRPCRouter"}, "toolu_grep")]),
            text_turn("The router is in main.ts."),
            text_turn("It is in main.ts."),
        ]
    )
    proc = lathe(
        ["-p", "where is the router?", "--output-format", "stream-json"], project, env_for(fake_api)
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    out = lines(proc.stdout)
    nested = [o for o in out if o.get("parent_tool_use_id") == "toolu_agent"]
    assert [(o["type"], o["message"]["role"]) for o in nested] == [
        ("user", "user"),
        ("assistant", "assistant"),
        ("user", "user"),
        ("assistant", "assistant"),
    ]
    assert nested[0]["message"]["content"][0]["text"] == "Where is the tRPC router defined?"
    assert len({o["agent_id"] for o in nested}) == 1
    grep_result = nested[2]["message"]["content"][0]
    assert grep_result["tool_use_id"] == "toolu_grep" and "main.ts" in json.dumps(grep_result)
    # The Agent call's own line comes first, and the session's lines carry no parent.
    agent_line = next(i for i, o in enumerate(out) if "toolu_agent" in json.dumps(o))
    assert out[agent_line]["type"] == "assistant" and "parent_tool_use_id" not in out[agent_line]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "It is in main.ts."

    main, sub, _, final = fake_api.bodies()
    agent = next(t for t in main["tools"] if t["name"] == "Agent")
    for name in ("repo-explorer", "code-reviewer", "test-runner", "general-purpose", "Explore"):
        assert f"- {name}: " in agent["description"]
    assert "(Tools: Read, Glob, Grep)" in agent["description"]
    assert sorted(t["name"] for t in sub["tools"]) == ["Glob", "Grep", "Read"]
    assert sub["model"] == "claude-sonnet-5-5"  # `model: sonnet`
    system = "".join(b["text"] for b in sub["system"])
    assert system.startswith("You are a read-only repository explorer for the 1Code desktop app.")
    assert "Expected output:" in system
    assert "  The router is in main.ts." in json.dumps(final["messages"][-1])


def test_p_waits_for_a_background_agent_and_gives_its_notification_a_turn(fake_api, project):
    route(
        fake_api,
        {
            "go": [
                turn_of(
                    [
                        tool_use_block(
                            "Task",  # Claude Code's older name still resolves
                            {
                                "description": "look around",
                                "prompt": "SUB-BG look",
                                "run_in_background": True,
                            },
                            "toolu_bg",
                        )
                    ]
                ),
                text_turn("started it"),
                text_turn("the agent reported back"),
            ],
            "SUB-BG": [text_turn("background findings", delay=0.05)],
        },
    )
    proc = lathe(["-p", "go", "--output-format", "stream-json"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    out = lines(proc.stdout)
    results = [o for o in out if o["type"] == "result"]
    assert [r["result"] for r in results] == ["started it", "the agent reported back"]
    nested = [o for o in out if o.get("parent_tool_use_id") == "toolu_bg"]
    assert nested[-1]["message"]["content"][0]["text"] == "background findings"
    notified = json.dumps(requests_of(fake_api, "go")[-1]["messages"][-1])
    assert "<task-notification>" in notified and "<result>background findings</result>" in notified
