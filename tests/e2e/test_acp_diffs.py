"""What `lathe --acp` shows of a call comes from the engine's view of it: the kind and files the
tool declared, and the diff the engine read from the real file off the loop. A Write over an
existing file sends that file's text as the diff's old text (not the "new file" form), a
NotebookEdit sends its notebook's change, and a Read names its file at the line it starts from.
Driven by the `agent-client-protocol` package's client against the HTTP fake of the API."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.acp_client import RecordingClient, capabilities, lathe_acp
from tests.e2e.test_acp import env_for

TIMEOUT = 90
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "id": "c1",
            "metadata": {},
            "source": ["print(1)"],
            "outputs": [],
            "execution_count": None,
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _started(client: RecordingClient, call: str) -> Any:
    return next(
        u for u in client.updates if u.session_update == "tool_call" and u.tool_call_id == call
    )


def _finished(client: RecordingClient, call: str) -> Any:
    return next(
        u
        for u in client.updates
        if u.session_update == "tool_call_update"
        and u.tool_call_id == call
        and u.status in ("completed", "failed")
    )


async def test_diffs_kinds_and_locations_come_from_the_engine(fake_api: Any, project: Path) -> None:
    repo = project
    target = repo / "a.txt"
    target.write_text("line1\nline2\n")
    notebook = repo / "nb.ipynb"
    notebook.write_text(json.dumps(NOTEBOOK, indent=1))
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(target), "offset": 2}, "r1"),
                    tool_use_block("Read", {"file_path": str(notebook)}, "r2"),
                ]
            ),
            turn_of(
                [
                    tool_use_block(
                        "Write", {"file_path": str(target), "content": "line1\nCHANGED\n"}, "w1"
                    )
                ]
            ),
            turn_of(
                [
                    tool_use_block(
                        "NotebookEdit",
                        {"notebook_path": str(notebook), "cell_id": "c1", "new_source": "print(2)"},
                        "n1",
                    )
                ]
            ),
            text_turn("done"),
        ]
    )
    client = RecordingClient(["allow_once", "allow_once"])
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        new = await conn.new_session(cwd=str(repo), mcp_servers=[])
        r = await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
        assert r.stop_reason == "end_turn"
    assert target.read_text() == "line1\nCHANGED\n"

    read = _started(client, "r1")
    assert read.kind == "read"
    assert [(loc.path, loc.line) for loc in read.locations] == [(str(target), 2)]
    assert [(loc.path, loc.line) for loc in _started(client, "r2").locations] == [
        (str(notebook), None)
    ]

    write = _started(client, "w1")
    assert write.kind == "edit"
    assert [(loc.path, loc.line) for loc in write.locations] == [(str(target), None)]
    asked = {q.tool_call_id: q for q, _ in client.questions}
    (diff,) = asked["w1"].content
    # The real file's text as the old side: the client shows a change, not a new file.
    assert (diff.type, diff.path) == ("diff", str(target))
    assert (diff.old_text, diff.new_text) == ("line1\nline2\n", "line1\nCHANGED\n")
    (done,) = _finished(client, "w1").content
    assert (done.old_text, done.new_text) == ("line1\nline2\n", "line1\nCHANGED\n")

    assert _started(client, "n1").kind == "edit"
    (cell,) = asked["n1"].content
    assert cell.type == "diff" and cell.path == str(notebook)
    assert "print(1)" in (cell.old_text or "") and "print(1)" not in cell.new_text
    assert "print(2)" in cell.new_text
    assert json.loads(cell.old_text or "") == json.loads(json.dumps(NOTEBOOK))
