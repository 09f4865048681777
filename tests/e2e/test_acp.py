"""`lathe --acp` in a real subprocess, driven by the `agent-client-protocol` package's own client
(ClientSideConnection over spawn_agent_process), against the HTTP fake of the API."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block

from app.model.scenario import Block, Turn, text_block as scripted_text, text_turn, tool_use_block, turn_of
from app.transcript import load_transcript, project_transcripts_dir
from tests.e2e.acp_client import ROOT, RecordingClient, capabilities, lathe_acp

TIMEOUT = 60


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\nbeta\n")
    return project


def env_for(fake: Any, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ANTHROPIC_API_KEY="k",
        ANTHROPIC_BASE_URL=fake.url,
        LATHE_RETRY_BASE_MS="5",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


async def start(conn: Any, repo: Path, **caps: bool) -> str:
    init = await conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(**caps)
    )
    assert init.protocol_version == PROTOCOL_VERSION
    assert init.agent_capabilities.load_session is True
    assert init.auth_methods == []
    assert init.agent_info.name == "lathe"
    new = await conn.new_session(cwd=str(repo), mcp_servers=[])
    assert new.modes.current_mode_id == "default"
    assert {"default", "acceptEdits", "plan"} <= {m.id for m in new.modes.available_modes}
    return str(new.session_id)


def tool_results(repo: Path, session_id: str) -> list[str]:
    path = project_transcripts_dir(repo) / f"{session_id}.jsonl"
    ids = []
    for message in load_transcript(path).messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            ids.extend(b["tool_use_id"] for b in content if b.get("type") == "tool_result")
    return ids


async def test_prompt_streams_text_and_thinking(fake_api, repo):
    fake_api.load(
        [
            Turn(
                blocks=(
                    Block("thinking", ("Let me ", "think.")),
                    scripted_text("Hello from lathe, over ACP.", 6),
                )
            )
        ]
    )
    client = RecordingClient()
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo)
        response = await conn.prompt(session_id=session_id, prompt=[text_block("hi")])
        assert response.stop_reason == "end_turn"
        chunks = client.of("agent_message_chunk")
        assert len(chunks) > 1  # streamed, not one final blob
        assert client.text() == "Hello from lathe, over ACP."
        assert client.text("agent_thought_chunk") == "Let me think."
        commands = client.of("available_commands_update")
        assert commands and {"compact", "context"} <= {
            c.name for c in commands[0].available_commands
        }
    body = fake_api.bodies()[0]
    assert body["messages"][0]["content"][-1]["text"] == "hi"
