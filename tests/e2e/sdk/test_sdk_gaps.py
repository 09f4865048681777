"""The real `claude-agent-sdk` against lathe: agents a program defines, permission updates of
every kind, a deny that interrupts, hook events for the settings' command hooks, and an image in
a user message. One ClaudeSDKClient (one lathe process) for the whole scenario."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.sdk.conftest import options
from tests.e2e.sdk.test_sdk_client import bash, tool_results, turn
from tests.fakeapi.server import FakeAPI

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def tools_of(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system)
    return str(system or "")


async def test_agents_updates_interrupting_deny_hook_events_and_images(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path, tmp_path: Path
) -> None:
    from claude_agent_sdk import (
        AgentDefinition,
        ClaudeSDKClient,
        PermissionResultAllow,
        PermissionResultDeny,
        PermissionUpdate,
        ResultMessage,
        SystemMessage,
    )
    from claude_agent_sdk.types import PermissionRuleValue

    extra = tmp_path / "extra"
    extra.mkdir()
    (repo / ".claude").mkdir()
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hooked"}]}
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        command = tool_input.get("command", "")
        if command == "touch saved":
            return PermissionResultAllow(
                updated_permissions=[
                    PermissionUpdate(
                        type="addRules",
                        rules=[PermissionRuleValue(tool_name="Bash", rule_content="rm:*")],
                        behavior="deny",
                        destination="localSettings",
                    ),
                    PermissionUpdate(
                        type="addDirectories", directories=[str(extra)], destination="session"
                    ),
                ]
            )
        if command == "touch unknown-dir":
            return PermissionResultAllow(
                updated_permissions=[
                    PermissionUpdate(type="addDirectories", directories=[str(tmp_path / "no")])
                ]
            )
        return PermissionResultDeny(message="stop everything", interrupt=True)

    agent_call = {"description": "review", "prompt": "review a.txt", "subagent_type": "reviewer"}
    fake_api.enqueue(
        turn_of([tool_use_block("Agent", agent_call, "toolu_ag")]),
        text_turn("looks fine"),  # the subagent's answer
        text_turn("reviewed"),
        bash("touch saved", "toolu_s1"),
        text_turn("saved"),
        bash("touch unknown-dir", "toolu_u1"),
        text_turn("refused"),
        bash("touch halt", "toolu_i1"),
        text_turn("never asked for"),
    )
    reviewer = AgentDefinition(
        description="Reviews code for bugs.",
        prompt="You are the reviewer agent. Report bugs.",
        tools=["Read", "Grep"],
        model="haiku",
    )
    opts = options(
        lathe_cli,
        repo,
        agents={"reviewer": reviewer},
        can_use_tool=can_use_tool,
        include_hook_events=True,
    )
    async with ClaudeSDKClient(opts) as client:
        # 1. The program's agent is an Agent type: listed, and run with its prompt, tools and
        # model.
        reviewed = await turn(client, "review please")
        init = reviewed[0]
        assert isinstance(init, SystemMessage) and "reviewer" in init.data["agents"]
        bodies = fake_api.bodies()
        assert "reviewer: Reviews code for bugs." in json.dumps(
            [t for t in bodies[0]["tools"] if t["name"] == "Agent"]
        )
        sub = bodies[1]
        assert "You are the reviewer agent." in system_text(sub)
        assert tools_of(sub) == {"Read", "Grep"} and sub["model"] == "claude-haiku-5-5"
        assert isinstance(reviewed[-1], ResultMessage) and reviewed[-1].result == "reviewed"

        # 2. Updates beyond allow rules: a deny rule saved to the local settings, a folder
        # for the session; the settings' command hook is reported as hook events.
        saved = await turn(client, "save")
        assert (repo / "saved").exists()
        local = (repo / ".lathe" / "settings.local.toml").read_text()
        assert 'deny = [\n    "Bash(rm:*)",\n]' in local
        events = [m for m in saved if isinstance(m, SystemMessage) and "hook" in m.subtype]
        assert [e.subtype for e in events] == ["hook_started", "hook_response"]
        response = events[1].data
        assert response["hook_name"] == "PreToolUse:Bash" and response["hook_event"] == "PreToolUse"
        assert response["output"] == "hooked\n" and response["outcome"] == "success"
        assert response["exit_code"] == 0 and response["hook_id"] == events[0].data["hook_id"]

        # 3. An update lathe cannot apply is never skipped: the call is denied, saying why.
        refused = await turn(client, "unknown dir")
        (denied,) = [b for b in tool_results(refused) if b.tool_use_id == "toolu_u1"]
        assert denied.is_error and "is not a folder" in str(denied.content)
        assert not (repo / "unknown-dir").exists()

        # 4. A deny with interrupt: the turn ends there, the model is not asked again.
        asked = len(fake_api.bodies())
        halted = await turn(client, "halt")
        assert isinstance(halted[-1], ResultMessage) and halted[-1].is_error
        assert halted[-1].subtype == "error_during_execution"
        assert len(fake_api.bodies()) == asked + 1 and not (repo / "halt").exists()

        # 5. An image block in a user message reaches the model as sent.
        async def with_image() -> AsyncIterator[dict[str, Any]]:
            image = {"type": "base64", "media_type": "image/png", "data": PNG}
            yield {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "what is this?"},
                        {"type": "image", "source": image},
                    ],
                },
                "parent_tool_use_id": None,
            }

        await client.query(with_image())
        [m async for m in client.receive_response()]
        content = fake_api.bodies()[-1]["messages"][-1]["content"]
        assert {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
        } in [{k: b[k] for k in ("type", "source")} for b in content if b.get("type") == "image"]
