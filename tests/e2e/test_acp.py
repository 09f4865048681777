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

from app.model.scenario import (
    Block,
    Turn,
    text_turn,
    tool_use_block,
    turn_of,
)
from app.model.scenario import (
    text_block as scripted_text,
)
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
    policy = repo.parent / "policy.toml"
    policy.write_text("[permissions]\ndisable_bypass_mode = true\n")
    env = env_for(fake_api, LATHE_POLICY_FILE=str(policy))
    client = RecordingClient()
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        session_id = await start(conn, repo)
        # A policy that disables bypassPermissions: set_mode refuses it, the mode stays.
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session_id, mode_id="bypassPermissions")
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

        # A second session in a folder whose settings are broken fails closed, naming the file.
        broken = repo.parent / "broken"
        (broken / ".lathe").mkdir(parents=True)
        (broken / ".lathe" / "settings.toml").write_text("[permissions\nallow = 1\n")
        with pytest.raises(RequestError) as err:
            await conn.new_session(cwd=str(broken), mcp_servers=[])
        assert "settings.toml" in json.dumps(err.value.data)
    bodies = fake_api.bodies()
    assert len(bodies) == 1 and bodies[0]["messages"][0]["content"][-1]["text"] == "hi"


def bash(command: str, block_id: str) -> Turn:
    return turn_of([tool_use_block("Bash", {"command": command}, block_id)])


def last_results(fake: Any) -> dict[str, Any]:
    """tool_use_id -> the tool_result block the model got in the latest request."""
    out: dict[str, Any] = {}
    for message in fake.bodies()[-1]["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    out[block["tool_use_id"]] = block
    return out


def option_kinds(options: list[Any]) -> list[str]:
    return [o.kind for o in options]


async def test_tool_calls_and_permissions(fake_api, repo):
    fake_api.load(
        [
            bash("touch made.txt", "b1"),
            text_turn("made"),
            bash("touch always.txt", "b2"),
            text_turn("ok"),
            bash("touch always.txt", "b3"),
            text_turn("ok again"),
            turn_of(
                [
                    tool_use_block(
                        "Write", {"file_path": str(repo / "new.txt"), "content": "n\n"}, "w1"
                    ),
                    tool_use_block(
                        "TodoWrite",
                        {
                            "todos": [
                                {
                                    "content": "Write it",
                                    "status": "completed",
                                    "activeForm": "Writing",
                                },
                                {
                                    "content": "Test it",
                                    "status": "pending",
                                    "activeForm": "Testing",
                                },
                            ]
                        },
                        "t1",
                    ),
                ]
            ),
            text_turn("written"),
            turn_of([tool_use_block("ExitPlanMode", {"plan": "1. Write it\n2. Test it"}, "p1")]),
            text_turn("planned"),
            bash("mkdir nope", "b4"),
            text_turn("stopped"),
        ]
    )
    client = RecordingClient(["allow_once", "allow_always", "plan:acceptEdits", "reject_once"])
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo)

        # Allow once: asked with the three options, then run; the call goes pending -> running
        # -> completed with its output.
        r = await conn.prompt(session_id=session_id, prompt=[text_block("make it")])
        assert r.stop_reason == "end_turn" and (repo / "made.txt").exists()
        tool_call, options = client.questions[0]
        assert tool_call.tool_call_id == "b1" and tool_call.kind == "execute"
        assert option_kinds(options) == [
            "allow_once",
            "allow_always",
            "reject_once",
            "reject_always",
        ]
        b1 = client.tool_updates("b1")
        assert b1[0].session_update == "tool_call" and b1[0].status == "pending"
        assert b1[0].kind == "execute" and "touch made.txt" in b1[0].title
        assert b1[0].raw_input == {"command": "touch made.txt"}
        assert [u.status for u in b1[1:]] == ["in_progress", "completed"]
        assert b1[-1].content[0].type == "content"

        # Always: the rule lands in .lathe/settings.local.toml as the TUI's "always" writes it,
        # and the same call later runs without a question.
        await conn.prompt(session_id=session_id, prompt=[text_block("again")])
        saved = (repo / ".lathe" / "settings.local.toml").read_text()
        assert 'allow = [\n    "Bash(touch:*)",\n]' in saved
        await conn.prompt(session_id=session_id, prompt=[text_block("once more")])
        assert len(client.questions) == 2
        assert [u.status for u in client.tool_updates("b3")][-1] == "completed"

        # set_mode acceptEdits: a Write in the project runs without a question; TodoWrite's list
        # arrives as the client's plan.
        await conn.set_session_mode(session_id=session_id, mode_id="acceptEdits")
        await conn.prompt(session_id=session_id, prompt=[text_block("write")])
        assert (repo / "new.txt").read_text() == "n\n" and len(client.questions) == 2
        w1 = client.tool_updates("w1")
        assert w1[0].kind == "edit" and w1[0].locations[0].path == str(repo / "new.txt")
        # No question, so no preview was read: the diff comes with the result (the engine's
        # whole texts; old_text None: the file is new).
        (made,) = w1[-1].content
        assert (made.type, made.old_text, made.new_text) == ("diff", None, "n\n")
        plan = client.of("plan")[-1]
        assert [(e.content, e.status) for e in plan.entries] == [
            ("Write it", "completed"),
            ("Test it", "pending"),
        ]
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session_id, mode_id="yolo")

        # Plan mode: the plan's approval is a question whose answer picks the mode to go on in;
        # the switch reaches the client as current_mode_update.
        await conn.set_session_mode(session_id=session_id, mode_id="plan")
        await conn.prompt(session_id=session_id, prompt=[text_block("plan it")])
        tool_call, options = client.questions[2]
        assert (
            tool_call.kind == "switch_mode" and "1. Write it" in tool_call.content[0].content.text
        )
        assert [o.option_id for o in options] == ["plan:acceptEdits", "plan:default", "reject_once"]
        assert client.of("current_mode_update")[-1].current_mode_id == "acceptEdits"
        await conn.set_session_mode(session_id=session_id, mode_id="default")

        # Reject: not run, the model reads the rejection, the call shows as failed.
        await conn.prompt(session_id=session_id, prompt=[text_block("nope")])
        assert not (repo / "nope").exists() and len(client.questions) == 4
        assert client.tool_updates("b4")[-1].status == "failed"
        assert "doesn't want to proceed" in last_results(fake_api)["b4"]["content"]
    assert sorted(tool_results(repo, session_id)) == ["b1", "b2", "b3", "b4", "p1", "t1", "w1"]


async def test_cancel_mid_tool_and_during_a_question(fake_api, repo):
    fake_api.load(
        [
            bash("echo started; sleep 30", "s1"),
            bash("touch held.txt", "h1"),
            text_turn("still here"),
            bash("sleep 30", "s2"),
        ]
    )
    # `echo` and `sleep` are read-only for the Bash analysis: they run without a question.
    client = RecordingClient(["hold"])
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo)
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session_id, prompt=[text_block("sleep")])
        )
        # The output shows as it comes, before the command ends.
        while not [
            u
            for u in client.tool_updates("s1")
            if u.content and "started" in u.content[0].content.text
        ]:
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=session_id)
        r = await asyncio.wait_for(turn, 20)
        assert r.stop_reason == "cancelled"
        assert client.tool_updates("s1")[-1].status == "failed" and not client.questions

        # Cancel while the question is open: the question resolves as aborted, nothing runs.
        client.asked.clear()
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("t")]))
        await asyncio.wait_for(client.asked.wait(), 20)
        await conn.cancel(session_id=session_id)
        r = await asyncio.wait_for(turn, 20)
        assert r.stop_reason == "cancelled" and not (repo / "held.txt").exists()
        assert [q[0].tool_call_id for q in client.questions] == ["h1"]
        assert client.tool_updates("h1")[-1].status == "failed"

        # The session goes on.
        r = await conn.prompt(session_id=session_id, prompt=[text_block("there?")])
        assert r.stop_reason == "end_turn" and client.text().endswith("still here")

        # The client goes away mid-tool: lathe ends the turn as Ctrl+C does, then exits.
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("z")]))
        while not [u for u in client.tool_updates("s2") if u.status == "in_progress"]:
            await asyncio.sleep(0.02)
        turn.cancel()
    # Every tool_use got exactly one tool_result.
    assert sorted(tool_results(repo, session_id)) == ["h1", "s1", "s2"]


async def test_load_replays_a_past_session(fake_api, repo):
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "r1")]),
            text_turn("It says alpha."),
            text_turn("Still alpha."),
        ]
    )
    first = RecordingClient()
    env = env_for(fake_api)
    async with asyncio.timeout(TIMEOUT), lathe_acp(first, repo, env) as (conn, _):
        session_id = await start(conn, repo)
        await conn.prompt(session_id=session_id, prompt=[text_block("read a.txt")])
        listed = await conn.list_sessions(cwd=str(repo))
        assert [(s.session_id, s.title) for s in listed.sessions] == [(session_id, "read a.txt")]

    client = RecordingClient()
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        loaded = await conn.load_session(cwd=str(repo), session_id=session_id, mcp_servers=[])
        assert loaded.modes.current_mode_id == "default"
        kinds = [u.session_update for u in client.updates]
        assert kinds[:4] == [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk",
        ]
        assert client.updates[0].content.text == "read a.txt"
        start_r1, done_r1 = client.tool_updates("r1")
        assert start_r1.kind == "read" and start_r1.locations[0].path == str(repo / "a.txt")
        assert done_r1.status == "completed" and "alpha" in done_r1.content[0].content.text
        assert client.text() == "It says alpha."
        with pytest.raises(RequestError):
            await conn.load_session(cwd=str(repo), session_id="no-such-session", mcp_servers=[])
        # The conversation goes on where it was.
        r = await conn.prompt(session_id=session_id, prompt=[text_block("and now?")])
        assert r.stop_reason == "end_turn"
    texts = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "read a.txt" in texts and "It says alpha." in texts and "and now?" in texts


async def test_client_files_and_terminal(fake_api, repo):
    a = str(repo / "a.txt")
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": a}, "r1")]),
            turn_of(
                [
                    tool_use_block(
                        "Edit",
                        {"file_path": a, "old_string": "UNSAVED", "new_string": "SAVED"},
                        "e1",
                    )
                ]
            ),
            bash("echo hi-from-terminal", "b1"),
            text_turn("done"),
            bash("sleep 30", "b2"),
        ]
    )
    client = RecordingClient(["allow_once", "allow_once"])
    client.buffers[a] = "alpha\nUNSAVED\n"  # the editor's buffer differs from the disk
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo, fs=True, terminal=True)
        r = await conn.prompt(session_id=session_id, prompt=[text_block("fix a.txt")])
        assert r.stop_reason == "end_turn"
        results = last_results(fake_api)
        # The model read the buffer, not the disk, and the edit went through the editor.
        assert results["r1"]["content"] == "1\talpha\n2\tUNSAVED"
        assert client.reads[0] == a and client.writes == [(a, "alpha\nSAVED\n")]
        assert (repo / "a.txt").read_text() == "alpha\nSAVED\n"
        question = client.questions[0][0]
        assert question.tool_call_id == "e1" and question.content[0].type == "diff"
        assert question.content[0].old_text == "UNSAVED" and question.content[0].new_text == "SAVED"
        # Bash ran in the client's terminal, shown live by its id.
        assert client.terminal_commands == ["echo hi-from-terminal"]
        shown = [c for u in client.tool_updates("b1") for c in (u.content or ())]
        assert any(c.type == "terminal" and c.terminal_id == "term-1" for c in shown)
        assert "hi-from-terminal" in results["b1"]["content"]

        # session/cancel kills the client's terminal and the turn ends cancelled.
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("z")]))
        while "term-2" not in client.terminals:
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=session_id)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"
        # Killed, not left to sleep its 30 s out.
        assert await asyncio.wait_for(client.terminals["term-2"].wait(), 10) == -9
        assert client.tool_updates("b2")[-1].status == "failed"
    assert sorted(tool_results(repo, session_id)) == ["b1", "b2", "e1", "r1"]


def test_acp_takes_no_prompt():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "app", "--acp", "hello"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--acp takes no prompt" in proc.stderr
