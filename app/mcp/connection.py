"""One MCP server connection, living in its own asyncio task.

The SDK's transports and ClientSession are context managers whose task groups must be entered and
exited by the same task, so one task owns them for the connection's whole life: it connects,
lists the tools, then waits until asked to stop and closes everything on the way out (the stdio
transport closes stdin, then terminates and kills the server's process group). Calls come from
other tasks; they only send requests on the open session.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import IO, Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from app import debuglog
from app.mcp.bridge import McpTool, bridge_tools, mcp_progress
from app.mcp.config import ServerSpec
from app.mcp.info import ServerStatus
from tools.abort import AbortSignal
from tools.base import ProgressCallback, ToolError
from tools.process.child_env import child_env
from tools.process.owner import mark_env

_CLOSED_CODE = -32000  # the SDK's "Connection closed"


@dataclass(frozen=True)
class McpOptions:
    """Time limits, in seconds. From the environment as Claude Code names them (milliseconds)."""

    connect_timeout: float = 10.0
    call_timeout: float = 600.0
    close_timeout: float = 8.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> McpOptions:
        environ = os.environ if env is None else env
        return cls(
            connect_timeout=_ms(environ.get("MCP_TIMEOUT"), cls.connect_timeout),
            call_timeout=_ms(environ.get("MCP_TOOL_TIMEOUT"), cls.call_timeout),
        )


def _ms(value: str | None, default: float) -> float:
    try:
        seconds = int(value or "") / 1000
    except ValueError:
        return default
    return seconds if seconds > 0 else default


def quiet_sdk_logging() -> None:
    """The SDK logs tracebacks for a server's bad output; on a full-screen terminal that would tear
    the screen. We report the same problems in the server's state instead."""
    logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    logger.propagate = False


class ServerConnection:
    def __init__(
        self,
        spec: ServerSpec,
        options: McpOptions,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        on_change: Callable[[ServerConnection], None] | None = None,
        sdk_transport: Callable[[str], Any] | None = None,
    ) -> None:
        self.spec = spec
        # Opens an SDK server's streams (app/protocol/sdk_mcp.py); None outside the SDK protocol.
        self.sdk_transport = sdk_transport
        self.options = options
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)
        self.on_change = on_change
        self.status: ServerStatus = "pending"
        self.error = ""
        self.warnings: list[str] = []
        self.tools: list[McpTool] = []
        self.server_version = ""
        self.instructions = ""
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self._stream_error = ""
        self._stderr: IO[bytes] | None = None
        self._connect_scope: anyio.CancelScope | None = None

    @property
    def server_name(self) -> str:
        return self.spec.name

    # -- life cycle -----------------------------------------------------------------------------

    def launch(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"mcp:{self.spec.name}")

    async def wait_settled(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Wait until connected or failed; False when `timeout` passed first (still pending)."""
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        self._stop.set()
        if self._connect_scope is not None:
            self._connect_scope.cancel()
        task = self._task
        if task is None:
            self._set("disconnected", self.error)
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), self.options.close_timeout)
        except TimeoutError:
            # The transport bounds its own shutdown; this is the last resort.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        except Exception as exc:
            debuglog.record("mcp", f'closing MCP server "{self.spec.name}" raised', exc)

    async def _run(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message)
                )
                with anyio.fail_after(self.options.connect_timeout), anyio.CancelScope() as scope:
                    # close() cancels this scope (from another task) to stop a slow handshake.
                    self._connect_scope = scope
                    if self._stop.is_set():
                        scope.cancel()
                    await self._handshake(session)
                self._connect_scope = None
                if self._stop.is_set():
                    self._set("disconnected")
                    return
                self._session = session
                self._set("connected")
                await self._stop.wait()
                self._session = None
        except asyncio.CancelledError:
            self._set("disconnected", self.error)
            raise
        except Exception as exc:  # anything the server does is reported, never raised
            debuglog.record("mcp", f'MCP server "{self.spec.name}" failed ({self.status})', exc)
            if self.status == "pending":
                self._set("failed", self._describe(exc))
            elif not self._stop.is_set():
                self._set("failed", f"the connection failed: {self._describe(exc)}")
        finally:
            self._session = None
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
        if self._stop.is_set() and self.status == "connected":
            self._set("disconnected")
        elif self.status == "connected":
            self._set("failed", "the connection ended")

    def _transport(self) -> Any:
        spec = self.spec
        if spec.transport == "sdk":
            if self.sdk_transport is None:
                raise ConnectionError("an SDK server needs the Claude Agent SDK protocol")
            return self.sdk_transport(spec.name)
        if spec.transport == "stdio":
            # Closed by _run when the connection ends (it outlives this function).
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
            params = StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                # The whole environment less lathe's credentials, plus the server's own `env`
                # (explicit, so a key written there is passed on), plus the owner marker, so the
                # reaper stops a server that outlives lathe.
                env=dict(mark_env({**child_env(self.env), **spec.env})),
                cwd=spec.cwd or self.cwd,
                encoding_error_handler="replace",
            )
            return stdio_client(params, errlog=self._stderr)  # type: ignore[arg-type]
        if spec.transport == "sse":
            return sse_client(spec.url, headers=dict(spec.headers) or None)
        return _http_transport(spec.url, dict(spec.headers))

    async def _handshake(self, session: ClientSession) -> None:
        init = await session.initialize()
        self.server_version = init.server_info.version or ""
        self.instructions = init.instructions or ""
        listed: list[types.Tool] = []
        cursor: str | None = None
        # A server that pages forever must not keep us here: the connect timeout bounds this too.
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self.tools, self.warnings = bridge_tools(self, listed)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._stream_error = _first_line(str(message)) or type(message).__name__

    def _set(self, status: ServerStatus, error: str = "") -> None:
        self.status = status
        self.error = error
        if status != "pending":
            self._settled.set()
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception as exc:  # a broken observer must not break the connection
                debuglog.record("sink", f"an MCP status observer raised on {status}", exc)

    def _describe(self, exc: BaseException) -> str:
        exc = _leaf(exc)
        spec = self.spec
        if isinstance(exc, TimeoutError):
            text = f"no answer within {self.options.connect_timeout:g} s"
        elif isinstance(exc, FileNotFoundError) and spec.transport == "stdio":
            text = f"cannot start {spec.command!r}: command not found"
        elif isinstance(exc, OSError) and spec.transport == "stdio":
            text = f"cannot start {spec.command!r}: {exc.strerror or exc}"
        elif isinstance(exc, MCPError) and exc.error.code == _CLOSED_CODE:
            text = "the server closed the connection"
        else:
            text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if self._stream_error:
            text += f"; it sent something that is not JSON-RPC ({self._stream_error[:160]})"
        tail = self._stderr_tail()
        if tail:
            text += f"; its stderr ends with: {tail}"
        return text

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 400))
            data = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in data.splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-300:]

    # -- calls ----------------------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        abort: AbortSignal,
        on_progress: ProgressCallback | None = None,
    ) -> types.CallToolResult:
        """Call a tool; every failure of the server becomes a ToolError the model can read. The
        server's progress notifications for the call reach `on_progress` (with a fraction when
        it says the total)."""
        session = self._session
        name = self.spec.name
        if self.status != "connected" or session is None:
            why = f" ({self.error})" if self.error else ""
            raise ToolError(
                f'MCP server "{name}" is {self.status}{why}. Ask the user to reconnect it with /mcp.'
            )
        if abort.aborted:
            raise ToolError(f"The call to {tool} on MCP server {name} was interrupted.")
        timeout = self.options.call_timeout
        self._stream_error = ""

        async def progressed(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(mcp_progress(progress, total, message))

        call = asyncio.ensure_future(
            session.call_tool(
                tool, arguments, progress_callback=progressed if on_progress else None
            )
        )
        aborted = asyncio.ensure_future(abort.wait())
        try:
            done, _ = await asyncio.wait(
                {call, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            aborted.cancel()
            if not call.done():
                call.cancel()
                await asyncio.gather(call, return_exceptions=True)
        if call not in done:
            if aborted in done:
                raise ToolError(f"The call to {tool} on MCP server {name} was interrupted.")
            extra = (
                f" It sent output that is not JSON-RPC: {self._stream_error}."
                if (self._stream_error)
                else ""
            )
            raise ToolError(
                f'MCP server "{name}" did not answer the call to {tool} within {timeout:g} s.'
                + extra
            )
        try:
            result = call.result()
        except MCPError as exc:
            if exc.error.code == _CLOSED_CODE:
                self._set("failed", "the server closed the connection (it exited or crashed)")
                self._stop.set()
                raise ToolError(
                    f'MCP server "{name}" closed the connection during the call to {tool} '
                    "(it exited or crashed). Its tools are unavailable until it is reconnected "
                    "with /mcp."
                ) from None
            raise ToolError(f'MCP server "{name}" refused the call to {tool}: {exc}') from None
        except Exception as exc:
            debuglog.record("mcp", f'MCP server "{name}" sent an invalid answer to {tool}', exc)
            raise ToolError(
                f'MCP server "{name}" sent an invalid answer to {tool}: '
                f"{type(exc).__name__}: {_first_line(str(exc))}"
            ) from None
        if not isinstance(result, types.CallToolResult):
            raise ToolError(f'MCP server "{name}" sent an unexpected answer to {tool}.')
        return result


def _http_transport(url: str, headers: dict[str, str]) -> Any:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def transport() -> Any:
        async with (
            create_mcp_http_client(headers=headers or None) as client,
            streamable_http_client(url, http_client=client) as streams,
        ):
            yield streams

    return transport()


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
