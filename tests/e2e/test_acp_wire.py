"""`lathe --acp` against what a careless or hostile client sends: raw JSON-RPC lines on the
real subprocess's stdin (lines the `acp` client could never send), and the official client for
the rest. Found by a black-box attack on the ACP front end (F1-F10)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import ClientCapabilities

from app.model.scenario import Block, Turn, text_turn, tool_use_block, turn_of
from app.model.scenario import text_block as scripted_text
from tests.e2e.acp_client import RecordingClient, capabilities, lathe_acp
from tests.e2e.test_acp import TIMEOUT, bash, env_for, repo, start, tool_results

__all__ = ["repo"]  # the fixture, shared with test_acp.py


class Raw:
    """`lathe --acp` driven line by line: requests, their responses, the updates seen."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seen: list[dict[str, Any]] = []
        self.ids = 100

    async def line(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        await self.proc.stdin.drain()

    async def read(self) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        raw = await self.proc.stdout.readline()
        if not raw:
            return None
        message: dict[str, Any] = json.loads(raw)
        self.seen.append(message)
        return message

    async def until(self, test: Any) -> dict[str, Any]:
        while True:
            message = await self.read()
            assert message is not None, "lathe closed its stdout"
            if test(message):
                return message

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        key = self.ids
        await self.line(
            json.dumps({"jsonrpc": "2.0", "id": key, "method": method, "params": params}).encode()
        )
        return await self.until(lambda m: m.get("id") == key and "method" not in m)

    def statuses(self, tool_use_id: str) -> list[str]:
        return [
            m["params"]["update"].get("status", "")
            for m in self.seen
            if m.get("method") == "session/update"
            and m["params"]["update"].get("toolCallId") == tool_use_id
        ]


async def raw_lathe(repo: Path, env: dict[str, str], *args: str) -> Raw:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app", "--acp", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=open(repo.parent / "lathe-acp.stderr", "ab"),  # noqa: SIM115, ASYNC230
        env=env, cwd=repo, limit=1 << 24,
    )  # fmt: skip
    return Raw(proc)


async def test_bad_lines_are_answered_and_stdin_close_ends_the_tool(fake_api, repo):
    fake_api.load([bash("sleep 30", "s1"), text_turn("unreached")])
    env = env_for(fake_api)
    lathe = await raw_lathe(repo, env, "--permission-mode", "bypassPermissions")
    async with asyncio.timeout(TIMEOUT):
        # F1/F6: not JSON, not UTF-8, not an object, a batch: each answered, lathe stays.
        for bad, code in [
            (b"{nope", -32700),
            (b'{"x": "\xff\xfe"}', -32700),
            (b"[1,2,3]", -32600),
            (b'"str"', -32600),
            (b"5", -32600),
            (b"null", -32600),
            (b'[{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}]', -32600),
        ]:  # fmt: skip
            await lathe.line(bad)
            answer = await lathe.read()
            assert answer is not None and answer["error"]["code"] == code and answer["id"] is None
        # F9: a version lathe does not speak is answered with the one it does.
        init = await lathe.request("initialize", {"protocolVersion": 0})
        assert init["result"]["protocolVersion"] == PROTOCOL_VERSION == 1
        # F5: a session's folder is an absolute path to a directory.
        for cwd in ("sub/..", str(repo / "missing")):
            bad_cwd = await lathe.request("session/new", {"cwd": cwd, "mcpServers": []})
            assert bad_cwd["error"]["code"] == -32602, cwd
        new = await lathe.request("session/new", {"cwd": str(repo), "mcpServers": []})
        session_id = new["result"]["sessionId"]
        # F10: an empty prompt never reaches the API.
        for empty in ([], [{"type": "text", "text": " \n"}]):
            refused = await lathe.request(
                "session/prompt", {"sessionId": session_id, "prompt": empty}
            )
            assert refused["error"]["code"] == -32602
        assert fake_api.bodies() == []

        prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]}
        await lathe.line(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
                                     "params": prompt}).encode())  # fmt: skip
        await lathe.until(lambda m: "in_progress" in lathe.statuses("s1"))
        # A non-object mid-tool: answered, the tool runs on.
        await lathe.line(b"[1]")
        answer = await lathe.until(lambda m: "error" in m)
        assert answer["error"]["code"] == -32600 and lathe.proc.returncode is None
        # F3: the client goes away: the prompt is answered and the call gets its last update.
        assert lathe.proc.stdin is not None
        lathe.proc.stdin.close()
        response = await lathe.until(lambda m: m.get("id") == 7)
        assert response["result"]["stopReason"] == "cancelled"
        assert lathe.statuses("s1")[-1] == "failed"
        while await lathe.read() is not None:
            pass
        assert await lathe.proc.wait() == 0
    assert tool_results(repo, session_id) == ["s1"]


async def test_lone_surrogate_does_not_poison_the_session(fake_api, repo):
    fake_api.load([text_turn("one"), text_turn("two")])
    lathe = await raw_lathe(repo, env_for(fake_api))
    async with asyncio.timeout(TIMEOUT):
        await lathe.request("initialize", {"protocolVersion": 1})
        new = await lathe.request("session/new", {"cwd": str(repo), "mcpServers": []})
        session_id = new["result"]["sessionId"]
        # Valid JSON (an escape), not encodable as UTF-8: json.dumps keeps the escape.
        text = json.dumps({"type": "text", "text": "bad \ud800 char"})
        assert "\\ud800" in text
        line = '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"%s","prompt":[%s]}}'
        await lathe.line((line % (session_id, text)).encode())
        first = await lathe.until(lambda m: m.get("id") == 1)
        assert first["result"]["stopReason"] == "end_turn"
        later = await lathe.request(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "ok?"}]}
        )
        assert later["result"]["stopReason"] == "end_turn"
        assert lathe.proc.stdin is not None
        lathe.proc.stdin.close()
        await lathe.proc.wait()
    sent = json.dumps(fake_api.bodies()[-1]["messages"], ensure_ascii=False)
    assert "bad \ufffd char" in sent and "ok?" in sent


class Client(RecordingClient):
    """Records what the client had been told of each call when it was asked about it, and
    can break its terminal/output."""

    def __init__(self, answers: list[str] | None = None, broken_output: bool = False) -> None:
        super().__init__(answers)
        self.told_at_question: list[list[str | None]] = []
        self.broken_output = broken_output

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **kw: Any
    ) -> Any:
        told = [
            u.status
            for u in self.updates
            if getattr(u, "tool_call_id", None) == tool_call.tool_call_id
        ]
        self.told_at_question.append(told)
        return await super().request_permission(session_id, tool_call, options, **kw)

    async def terminal_output(self, *args: Any, **kwargs: Any) -> Any:
        if self.broken_output:
            raise RequestError.internal_error({"message": "output broke"})
        return await super().terminal_output(*args, **kwargs)


async def test_a_call_waiting_for_its_answer_is_pending_and_a_busy_session_is_not_loaded(
    fake_api, repo
):
    fake_api.load(
        [
            Turn(blocks=(Block("thinking", ("Pondering.",)), scripted_text("Thought.", 3))),
            bash("touch made.txt", "t1"),
            text_turn("made"),
            bash("echo go; sleep 30", "s1"),
        ]
    )
    client = Client(["allow_once"])
    env = env_for(fake_api)
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        session_id = await start(conn, repo)
        await conn.prompt(session_id=session_id, prompt=[text_block("think")])
        r = await conn.prompt(session_id=session_id, prompt=[text_block("make it")])
        assert r.stop_reason == "end_turn" and (repo / "made.txt").exists()
        # Asked while the editor still showed the call pending; running once allowed.
        assert client.told_at_question == [["pending"]]
        assert [u.status for u in client.tool_updates("t1")] == [
            "pending",
            "in_progress",
            "completed",
        ]

        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[text_block("z")]))
        while not [u for u in client.tool_updates("s1") if u.status == "in_progress"]:
            await asyncio.sleep(0.02)
        # Loading the session its prompt runs in would end that prompt: refused.
        with pytest.raises(RequestError) as refused:
            await conn.load_session(cwd=str(repo), session_id=session_id, mcp_servers=[])
        assert "busy" in str(refused.value.data)
        assert not turn.done()
        await conn.cancel(session_id=session_id)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"

    # F4: session/load replays the thinking as thoughts, as the live turn showed it.
    again = RecordingClient()
    async with asyncio.timeout(TIMEOUT), lathe_acp(again, repo, env) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        await conn.load_session(cwd=str(repo), session_id=session_id, mcp_servers=[])
        thoughts = [u for u in again.updates if u.session_update == "agent_thought_chunk"]
        assert [t.content.text for t in thoughts] == ["Pondering."]


async def test_a_failed_terminal_output_fails_bash(fake_api, repo):
    fake_api.load([bash("echo IMPORTANT", "b1"), text_turn("ok")])
    client = Client(broken_output=True)
    # `echo` is read-only for the Bash analysis: it runs without a question.
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env_for(fake_api)) as (conn, _):
        session_id = await start(conn, repo, terminal=True)
        await conn.prompt(session_id=session_id, prompt=[text_block("run")])
        last = client.tool_updates("b1")[-1]
        assert last.status == "failed"
        assert "Could not read the command's output" in str(last.raw_output)
    sent = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "Could not read the command's output" in sent and "(No output)" not in sent


async def test_a_policy_without_bypass_does_not_offer_it(fake_api, repo, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text("[permissions]\ndisable_bypass_mode = true\n")
    client = RecordingClient()
    env = env_for(fake_api, LATHE_POLICY_FILE=str(policy))
    async with asyncio.timeout(TIMEOUT), lathe_acp(client, repo, env) as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        new = await conn.new_session(cwd=str(repo), mcp_servers=[])
        assert "bypassPermissions" not in {m.id for m in new.modes.available_modes}
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=new.session_id, mode_id="bypassPermissions")


async def test_stdin_close_ends_a_read_waiting_for_the_client(fake_api, repo):
    fake_api.load([turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "r1")])])
    lathe = await raw_lathe(repo, env_for(fake_api))
    async with asyncio.timeout(TIMEOUT):
        fs = {"readTextFile": True, "writeTextFile": True}
        await lathe.request("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": fs}})
        new = await lathe.request("session/new", {"cwd": str(repo), "mcpServers": []})
        prompt = {
            "sessionId": new["result"]["sessionId"],
            "prompt": [{"type": "text", "text": "r"}],
        }
        await lathe.line(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
                                     "params": prompt}).encode())  # fmt: skip
        # The client is asked for the file and never answers; then it goes away.
        await lathe.until(lambda m: m.get("method") == "fs/read_text_file")
        assert lathe.proc.stdin is not None
        lathe.proc.stdin.close()
        response = await lathe.until(lambda m: m.get("id") == 7)
        assert response["result"]["stopReason"] == "cancelled"
        assert lathe.statuses("r1") == ["pending", "in_progress", "failed"]
        assert await lathe.proc.wait() == 0
