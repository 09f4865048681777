"""A command that fails in the editor's terminal is reported as failing (review round 3,
mutant N12: tools/process/terminal_run.py's `run.exit_code != 0`): through the real ACP path,
lathe --acp running Bash in the client's terminal, the model reads an error result and the
client sees the call failed."""

from __future__ import annotations

import asyncio

import pytest
from acp import text_block

from app.model.scenario import text_turn
from tests.e2e.acp_client import RecordingClient, lathe_acp
from tests.e2e.test_acp import TIMEOUT, bash, env_for, last_results, repo, start

__all__ = ["repo"]  # the fixture, used by name

pytestmark = pytest.mark.timeout(90)


async def test_a_failing_command_in_the_clients_terminal_fails(fake_api, repo):
    fake_api.load([bash("echo about-to-fail; exit 3", "b1"), text_turn("done")])
    client = RecordingClient(["allow_once"])
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo, fs=True, terminal=True)
        r = await conn.prompt(session_id=session_id, prompt=[text_block("run it")])
        assert r.stop_reason == "end_turn"
        assert client.terminal_commands == ["echo about-to-fail; exit 3"]
        result = last_results(fake_api)["b1"]
        assert result.get("is_error") is True
        assert "about-to-fail" in str(result["content"])
        assert client.tool_updates("b1")[-1].status == "failed"
