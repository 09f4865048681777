"""An editor's unsaved buffer of a new file (nothing on the disk yet) is read through the client
(tools/files/served.py), as a saved file's buffer is; a path neither the editor nor the disk
has is still "does not exist". `lathe --acp` in a real subprocess, the `agent-client-protocol`
package's client, the HTTP fake of the API."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import text_block

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.acp_client import RecordingClient, lathe_acp
from tests.e2e.test_acp import TIMEOUT, env_for, last_results, repo, start

__all__ = ["repo"]  # the fixture


async def test_an_unsaved_new_buffer_is_read_through_the_client(fake_api: Any, repo: Path):
    new = str(repo / "draft.py")
    gone = str(repo / "nowhere.py")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": new}, "r1"),
                    tool_use_block("Read", {"file_path": gone}, "r2"),
                ]
            ),
            text_turn("read"),
        ]
    )
    client = RecordingClient()
    client.buffers[new] = "print('not saved yet')\n"  # open in the editor, never saved
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo, fs=True)
        r = await conn.prompt(session_id=session_id, prompt=[text_block("read the draft")])
        assert r.stop_reason == "end_turn"
    assert not Path(new).exists()  # noqa: ASYNC240
    assert new in client.reads and gone in client.reads
    results = last_results(fake_api)
    assert "print('not saved yet')" in str(results["r1"]["content"])
    assert not results["r1"].get("is_error")
    assert results["r2"].get("is_error") and "does not exist" in str(results["r2"]["content"])
