"""`lathe --acp` with the `agent-client-protocol` package's client: the client's MCP servers
(stdio and http, one that fails), images in prompts, and "always reject". One lathe process
for the whole module's scenario, against the HTTP fake of the API."""

from __future__ import annotations

import asyncio
import base64
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp import (
    PROTOCOL_VERSION,
    RequestError,
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    text_block,
)
from acp.schema import (
    AllowedOutcome,
    EnvVariable,
    HttpMcpServer,
    McpServerStdio,
    RequestPermissionResponse,
)

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.acp_client import ROOT, RecordingClient, capabilities, lathe_acp
from tests.e2e.test_acp import env_for, last_results

TIMEOUT = 90
DEMO = ROOT / "tests" / "integration" / "mcp" / "servers" / "demo_server.py"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


class ByCallClient(RecordingClient):
    """Answers each question by its tool call's id (the order MCP questions come in is not
    this test's business)."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__()
        self.by_call = answers

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kw: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        choice = self.by_call[tool_call.tool_call_id]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server() -> Any:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


def user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


async def test_mcp_servers_images_and_always_reject(fake_api, project: Path, http_server: str):
    repo = project
    (repo / ".git").mkdir()
    (repo / ".lathe").mkdir()
    # A deny rule from the settings applies to a client's server's tool as to any other.
    (repo / ".lathe" / "settings.toml").write_text('[permissions]\ndeny = ["mcp__demo__add"]\n')
    fake_api.load(
        [
            turn_of([tool_use_block("mcp__demo__echo", {"text": "over acp"}, "m1")]),
            turn_of([tool_use_block("mcp__web__echo", {"text": "over http"}, "m2")]),
            text_turn("echoed"),
            text_turn("a tiny picture"),
            turn_of([tool_use_block("Bash", {"command": "touch first.txt"}, "b1")]),
            text_turn("rejected"),
            turn_of([tool_use_block("Bash", {"command": "touch second.txt"}, "b2")]),
            text_turn("refused again"),
        ]
    )
    client = ByCallClient({"m1": "allow_once", "m2": "allow_once", "b1": "reject_always"})
    servers = [
        McpServerStdio(
            name="demo",
            command=sys.executable,
            args=[str(DEMO), "stdio"],
            env=[EnvVariable(name="DEMO_TOKEN", value="t")],
        ),
        HttpMcpServer(type="http", name="web", url=http_server, headers=[]),
        McpServerStdio(name="broken", command=str(repo / "no-such-server"), args=[], env=[]),
        McpServerStdio(name="empty", command="", args=[], env=[]),
    ]
    env = env_for(fake_api, MCP_TIMEOUT="20000")
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities()
        )
        caps = init.agent_capabilities
        assert caps.prompt_capabilities.image is True
        assert caps.mcp_capabilities.http is True and caps.mcp_capabilities.sse is True
        new = await conn.new_session(cwd=str(repo), mcp_servers=servers)
        session_id = new.session_id

        # The servers' tools are offered (less the denied one) and run; the failed server is
        # a notice the client sees, and the session works.
        r = await conn.prompt(session_id=session_id, prompt=[text_block("echo")])
        assert r.stop_reason == "end_turn"
        offered = tool_names(fake_api.bodies()[0])
        assert {"mcp__demo__echo", "mcp__web__echo"} <= offered
        assert "mcp__demo__add" not in offered and not any("broken" in n for n in offered)
        results = last_results(fake_api)
        assert results["m1"]["content"][0]["text"] == "echo: over acp"
        assert results["m2"]["content"][0]["text"] == "echo: over http"
        notices = client.text().split("echoed")[0]
        assert "MCP server 'broken' did not start" in notices
        assert "mcpServers: MCP server 'empty': command is empty" in notices

        # An image, an image blob and a text resource reach the model as their blocks.
        blob = embedded_blob_resource("file:///tmp/dot.png", PNG, mime_type="image/png")
        note = embedded_text_resource("file:///tmp/n.txt", "the note")
        r = await conn.prompt(
            session_id=session_id,
            prompt=[
                text_block("what is this?"),
                image_block(PNG, "image/png"),
                resource_block(blob),
                resource_block(note),
            ],
        )
        assert r.stop_reason == "end_turn"
        blocks = user_blocks(fake_api.bodies()[-1])
        images = [b for b in blocks if b["type"] == "image"]
        assert [i["source"] for i in images] == [
            {"type": "base64", "media_type": "image/png", "data": PNG}
        ] * 2
        assert "what is this?" in blocks[0]["text"] and "the note" in blocks[0]["text"]
        # What the model cannot take is refused, naming it; nothing is sent.
        sent = len(fake_api.bodies())
        with pytest.raises(RequestError) as err:
            await conn.prompt(
                session_id=session_id,
                prompt=[
                    text_block("x"),
                    image_block(base64.b64encode(b"BM").decode(), "image/bmp"),
                ],
            )
        assert "image/bmp" in str(err.value.data)
        assert len(fake_api.bodies()) == sent

        # Always reject: offered beside the other three, saved as a deny rule; the same kind
        # of call is then refused without a question.
        await conn.prompt(session_id=session_id, prompt=[text_block("touch")])
        question, options = client.questions[-1]
        assert question.tool_call_id == "b1"
        assert [o.kind for o in options] == [
            "allow_once",
            "allow_always",
            "reject_once",
            "reject_always",
        ]
        saved = (repo / ".lathe" / "settings.local.toml").read_text()
        assert 'deny = [\n    "Bash(touch:*)",\n]' in saved
        asked = len(client.questions)
        await conn.prompt(session_id=session_id, prompt=[text_block("touch again")])
        assert len(client.questions) == asked
        assert not (repo / "first.txt").exists() and not (repo / "second.txt").exists()
        assert last_results(fake_api)["b2"]["is_error"] is True
