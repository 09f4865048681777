"""The ACP agent: initialize, sessions (new, load), modes, prompts and cancel.

Each ACP session is one engine Session with lathe's own session id, so `lathe --resume ID`
continues in the terminal what an editor started, and session/load takes back any session of
the folder. No authentication: lathe uses the credentials it finds, as `lathe -p` does.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionModeResponse,
)

from app import __version__, debuglog
from app.acp.session import AcpSession

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions


class LatheAgent:
    def __init__(self, opts: CliOptions) -> None:
        self.opts = opts
        self.conn: Client | None = None
        self.caps: ClientCapabilities | None = None
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.caps = client_capabilities
        return InitializeResponse(
            # The version lathe speaks, whatever was asked: the client decides if it can go on.
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
                # session/new's and session/load's mcpServers: stdio always, http and sse too.
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            auth_methods=[],
            agent_info=Implementation(name="lathe", title="lathe", version=__version__),
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The folder's sessions, newest first (what `lathe --resume` offers); one page."""
        from app.acp.compose import saved_sessions

        found = await asyncio.to_thread(saved_sessions, cwd)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=s.session_id,
                    cwd=s.cwd,
                    title=s.title or None,
                    updated_at=s.updated_at,
                )
                for s in found
            ]
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        raise RequestError.invalid_params({"message": "lathe offers no authentication methods"})

    def _options(self, extra_dirs: list[str] | None, resume: str | None) -> CliOptions:
        return replace(
            self.opts,
            prompt=None,
            continue_session=False,
            resume=resume,
            resume_picker=False,
            add_dirs=[*self.opts.add_dirs, *(extra_dirs or [])],
        )

    async def _open(
        self,
        cwd: str,
        extra_dirs: list[str] | None,
        resume: str | None,
        mcp_servers: list[Any] | None = None,
    ) -> AcpSession:
        for folder in (cwd, *(extra_dirs or [])):
            _check_folder(folder)
        if self.conn is None:
            raise RequestError.internal_error({"message": "no client connection"})
        session = AcpSession(self.conn, self.caps)
        await session.open(self._options(extra_dirs, resume), cwd, mcp_servers or ())
        self.sessions[session.session_id] = session
        return session

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = await self._open(cwd, additional_directories, None, mcp_servers)
        # Sent after the response (a task scheduled now runs after it is queued).
        session.advertise_commands()
        session.tell_problems()
        return NewSessionResponse(session_id=session.session_id, modes=session.modes())

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        old = self.sessions.get(session_id)
        if old is not None and old.busy:
            # Closing it would cancel the running prompt without a word to whoever sent it.
            raise RequestError.invalid_request(
                {"message": f"session {session_id!r} is busy: a prompt is running"}
            )
        if old is not None:
            del self.sessions[session_id]
            await old.close()  # its lock goes, so the session can be opened again
        session = await self._open(cwd, additional_directories, session_id, mcp_servers)
        # The whole history, the part before a compaction too, as the client saw it live.
        await session.replay()
        session.advertise_commands()
        session.tell_problems()
        return LoadSessionResponse(modes=session.modes())

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"no session {session_id!r}"})
        return session

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        self._session(session_id).set_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        for session in list(self.sessions.values()):
            try:
                await session.close()
            except Exception as exc:  # closing the others matters more; the log keeps this one
                debuglog.record("acp", "a session's close raised while the agent closed", exc)
        self.sessions.clear()


def _check_folder(path: str) -> None:
    """A session's folder: absolute (ACP requires it; a relative one would be taken from lathe's
    own working folder) and an existing directory."""
    if not os.path.isabs(path):
        raise RequestError.invalid_params({"message": f"cwd must be an absolute path: {path!r}"})
    if not os.path.isdir(path):
        raise RequestError.invalid_params({"message": f"no such directory: {path!r}"})
