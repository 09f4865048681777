"""A real ACP client (the `agent-client-protocol` package's ClientSideConnection) for the tests:
it records every update, answers permission questions from a script, serves fs/* from files
and unsaved "buffers", and runs terminal/* commands as real processes."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

ROOT = Path(__file__).resolve().parents[2]


class RecordingClient:
    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[Any] = []
        self.questions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self.answers = list(answers or [])
        self.asked = asyncio.Event()
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, asyncio.subprocess.Process] = {}
        self.terminal_commands: list[str] = []
        self._ids = itertools.count(1)
        self.output: dict[str, bytes] = {}

    # -- what the agent calls --------------------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kw: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        self.asked.set()
        choice = self.answers.pop(0) if self.answers else "hold"
        if choice == "hold":  # the user looks at the question until the turn is cancelled
            await asyncio.sleep(3600)
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        if text is None:
            text = Path(path).read_text(encoding="utf-8")  # noqa: ASYNC240
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kw: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content, encoding="utf-8")  # noqa: ASYNC240 - the editor saves
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kw: Any,
    ) -> CreateTerminalResponse:
        self.terminal_commands.append(command)
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{next(self._ids)}"
        self.terminals[terminal_id] = proc
        self.output[terminal_id] = b""

        async def pump() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(4096):
                self.output[terminal_id] += chunk

        self._pump = asyncio.ensure_future(pump())
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id].wait()
        await asyncio.sleep(0.05)  # the last output
        if code < 0:
            return WaitForTerminalExitResponse(signal=f"signal {-code}")
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> TerminalOutputResponse:
        return TerminalOutputResponse(
            output=self.output[terminal_id].decode(errors="replace"), truncated=False
        )

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> KillTerminalResponse:
        proc = self.terminals[terminal_id]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> ReleaseTerminalResponse:
        return ReleaseTerminalResponse()

    # -- what the tests read -------------------------------------------------------------------

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    def tool_updates(self, tool_call_id: str) -> list[Any]:
        return [
            u
            for u in self.updates
            if u.session_update in ("tool_call", "tool_call_update")
            and u.tool_call_id == tool_call_id
        ]


def capabilities(fs: bool = False, terminal: bool = False) -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal
    )


@contextlib.asynccontextmanager
async def lathe_acp(
    client: RecordingClient, cwd: Path, env: dict[str, str], *args: str
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    log = open(cwd.parent / "lathe-acp.stderr", "ab")  # noqa: SIM115, ASYNC230 - closed below
    try:
        async with spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "app",
            "--acp",
            *args,
            env=env,
            cwd=cwd,
            transport_kwargs={"stderr": log.fileno()},
        ) as (conn, proc):
            yield conn, proc
    finally:
        log.close()
