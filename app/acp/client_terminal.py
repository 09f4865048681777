"""The client's terminal/* methods as Bash's Terminals (tools/process/terminal_run.py).

When the client offers terminals, Bash (the real tool) runs a foreground command in a terminal
the editor shows live (`shown(tool_use_id, terminal_id)` tells the front end the call's terminal,
so the client can show it in the tool call). This module is only the client's calls: the
timeout, the interrupt and the result text are Bash's own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable


class ClientTerminals:
    """The client's terminal methods for one session (tools' Terminals: the composition passes
    it to the session's tool context)."""

    def __init__(
        self,
        create: Callable[[str, str, int], Awaitable[str]],
        wait: Callable[[str], Awaitable[tuple[int | None, str | None]]],
        output: Callable[[str], Awaitable[tuple[str, bool]]],
        kill: Callable[[str], Awaitable[None]],
        release: Callable[[str], Awaitable[None]],
        shown: Callable[[str, str], None],
    ) -> None:
        self._create, self._wait, self._output = create, wait, output
        self._kill, self._release, self._shown = kill, release, shown

    async def create(self, command: str, cwd: str, output_limit: int) -> str:
        return await self._create(command, cwd, output_limit)

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        return await self._wait(terminal_id)

    async def output(self, terminal_id: str) -> tuple[str, bool]:
        return await self._output(terminal_id)

    async def kill(self, terminal_id: str) -> None:
        await self._kill(terminal_id)

    async def release(self, terminal_id: str) -> None:
        await self._release(terminal_id)

    def shown(self, tool_use_id: str, terminal_id: str) -> None:
        self._shown(tool_use_id, terminal_id)
