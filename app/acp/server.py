"""`lathe --acp`: serve the Agent Client Protocol on stdin and stdout until the client leaves.

Standard output carries only the protocol: it is moved to a private descriptor first and fd 1
pointed at stderr, so nothing else lathe or a library prints (or a child inheriting fd 1) can
break a JSON-RPC line. Logs and warnings go to stderr, which clients keep as the agent's log.
A closed stdin, SIGINT, SIGTERM and SIGHUP end the connection the same way: every session's turn
is interrupted (its tool calls get their last update while the connection is still up), its
transcript closed, its lock released. Lines reach the ACP library through app.acp.wire's filter.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions


# The client may send large prompts (embedded files): the SDK's default for stdio.
STDIO_LIMIT = 50 * 1024 * 1024


def run_acp(opts: CliOptions) -> int:
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        return asyncio.run(_serve(opts, protocol_fd))
    except KeyboardInterrupt:
        return 130


async def _serve(opts: CliOptions, protocol_fd: int) -> int:
    from acp.agent.connection import AgentSideConnection

    from app.acp.agent import LatheAgent
    from app.acp.wire import pump

    loop = asyncio.get_running_loop()
    raw = asyncio.StreamReader(limit=STDIO_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw), sys.stdin)
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    out = os.fdopen(protocol_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)

    agent = LatheAgent(opts)
    conn = AgentSideConnection(cast(Any, agent), writer, reader, listening=False)
    serving = asyncio.current_task()
    stopped: list[int] = []

    def stop(sig: int) -> None:
        stopped.append(sig)
        if serving is not None:
            serving.cancel()

    # The end of stdin takes the signals' path (0: not a signal, exit status 0).
    feeding = asyncio.create_task(pump(raw, reader, writer, lambda: stop(0)))

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop, sig)
    try:
        await conn.listen()
    except asyncio.CancelledError:
        if not stopped:
            raise
    finally:
        # Turns are interrupted and end as Ctrl+C ends them (every tool_use answered, the
        # transcript whole) before the connection and its request tasks go.
        await agent.close()
        feeding.cancel()
        await asyncio.shield(conn.close())
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    return 128 + stopped[0] if stopped and stopped[0] else 0
