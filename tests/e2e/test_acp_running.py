"""`lathe --acp` says a call is `in_progress` only once it really runs: after the client answered
its permission request, never for a call the client rejected, once per call, for a built-in tool
and an MCP server's alike (the engine's "running" change; nothing patches the tools). Driven by
the `agent-client-protocol` package's client against the HTTP fake of the API."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block
from acp.schema import AllowedOutcome, McpServerStdio, RequestPermissionResponse

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.acp_client import ROOT, RecordingClient, capabilities, lathe_acp
from tests.e2e.test_acp import env_for

TIMEOUT = 90
DEMO = ROOT / "tests" / "integration" / "mcp" / "servers" / "demo_server.py"


class OrderedClient(RecordingClient):
    """Answers by tool call id, and keeps one ordered log of questions, answers and statuses."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__()
        self.by_call = answers
        self.order: list[tuple[str, str]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if update.session_update in ("tool_call", "tool_call_update") and update.status:
            self.order.append((update.status, update.tool_call_id))
        await super().session_update(session_id, update, **kwargs)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kw: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        self.order.append(("asked", tool_call.tool_call_id))
        # The user looks at the question a while: a call reported running meanwhile would be
        # seen before the answer.
        await asyncio.sleep(0.3)
        self.order.append(("answered", tool_call.tool_call_id))
        choice = self.by_call[tool_call.tool_call_id]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )


async def test_in_progress_only_after_the_answer_for_built_in_and_mcp_tools(
    fake_api: Any, project: Path
) -> None:
    repo = project
    (repo / ".git").mkdir()
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "touch ran.txt"}, "b1"),
                    tool_use_block("Bash", {"command": "touch rejected.txt"}, "b2"),
                ]
            ),
            turn_of([tool_use_block("mcp__demo__echo", {"text": "over acp"}, "m1")]),
            text_turn("done"),
        ]
    )
    client = OrderedClient({"b1": "allow_once", "b2": "reject_once", "m1": "allow_once"})
    servers = [
        McpServerStdio(name="demo", command=sys.executable, args=[str(DEMO), "stdio"], env=[])
    ]
    env = env_for(fake_api, MCP_TIMEOUT="20000")
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        new = await conn.new_session(cwd=str(repo), mcp_servers=servers)
        r = await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
        assert r.stop_reason == "end_turn"
    assert (repo / "ran.txt").exists() and not (repo / "rejected.txt").exists()
    for call in ("b1", "m1"):
        mine = [kind for kind, tool_call_id in client.order if tool_call_id == call]
        assert mine == ["pending", "asked", "answered", "in_progress", "completed"], (call, mine)
    rejected = [kind for kind, tool_call_id in client.order if tool_call_id == "b2"]
    assert "in_progress" not in rejected and rejected[-1] == "failed", rejected
    assert rejected[:3] == ["pending", "asked", "answered"]
