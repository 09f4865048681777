"""The ACP front end's composition: its sessions from the composition root, with the client's
capabilities wired into the built-in tools, and the folder's saved sessions for session/list.

The rest of app/acp talks to a session only through the engine's front-end API.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.acp.client_fs import ClientFiles
from app.acp.client_terminal import ClientTerminals
from app.engine.api import EngineEvent, SessionPort
from app.engine.setup import SessionSetup

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions


@dataclass
class Capabilities:
    """What the client offers; a method present means the client said it supports it."""

    files: ClientFiles
    terminals: ClientTerminals | None


class ToolAdapter:
    """What the session's built-in tools get from the client: its files and terminals reach
    them as the session's TextFiles and Terminals (build() below). No tool is kept here: how a
    call looks comes from the engine's views."""

    def __init__(self, caps: Capabilities) -> None:
        self.caps = caps


def build(
    opts: CliOptions,
    cwd: str,
    sink: Callable[[EngineEvent], None],
    adapter: ToolAdapter,
    mcp_servers: Sequence[Any] = (),
) -> SessionSetup:
    """A session in `cwd` (resuming `opts.resume` if set). Not interactive in the engine's
    sense (broken settings fail closed, no offline demo, the project's settings honoured as
    with -p), but with someone to ask: questions arrive as PermissionRequested. The client's
    `mcpServers` join the settings' servers (a name clash: the client's wins, as --mcp-config
    does)."""
    from app.compose import build_session, engine_options

    options = engine_options(opts)
    servers = mcp_config(mcp_servers)
    if servers:
        options = replace(options, mcp_servers=(*options.mcp_servers, servers))
    return build_session(
        options,
        interactive=False,
        ask_user=True,
        cwd=cwd,
        sink=sink,
        text_files=adapter.caps.files,
        terminals=adapter.caps.terminals,
    )


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def _pairs(items: Any) -> dict[str, str]:
    """ACP's `[{"name", "value"}]` (env variables, headers) as a mapping."""
    return {str(_get(i, "name")): str(_get(i, "value") or "") for i in items or ()}


def mcp_config(servers: Sequence[Any]) -> dict[str, Any]:
    """ACP's McpServer list in the `mcpServers` shape the MCP configuration reads (so a bad
    entry is the same problem, named, as in a settings file): stdio `{command, args, env}`,
    http and sse `{type, url, headers}`."""
    out: dict[str, Any] = {}
    for server in servers:
        name = str(_get(server, "name") or "")
        kind = _get(server, "type")
        if kind in ("http", "sse"):
            out[name] = {
                "type": kind,
                "url": _get(server, "url"),
                "headers": _pairs(_get(server, "headers")),
            }
        else:
            out[name] = {
                "command": _get(server, "command"),
                "args": [str(a) for a in _get(server, "args") or ()],
                "env": _pairs(_get(server, "env")),
            }
    return out


def mcp_failures(session: SessionPort) -> list[str]:
    """A line per MCP server that did not connect, with its reason."""
    return [
        f"MCP server {info.name!r} did not start ({info.error or info.status}); "
        "its tools are not available"
        for info in session.controls.mcp_servers()
        if info.status not in ("connected", "disabled")
    ]


@dataclass(frozen=True)
class SavedSession:
    session_id: str
    cwd: str
    title: str
    updated_at: str


def saved_sessions(cwd: str | None) -> list[SavedSession]:
    """The folder's sessions, newest first (what `lathe --resume` offers)."""
    from app.config.paths import project_dir
    from app.transcript import list_sessions

    folder = Path(cwd or os.getcwd()).resolve()
    return [
        SavedSession(
            s.session_id,
            str(folder),
            s.first_prompt,
            datetime.fromtimestamp(s.modified, UTC).isoformat(),
        )
        for s in list_sessions(project_dir(folder))
    ]
