"""The ACP front end's composition: its sessions from the composition root, with the client's
capabilities wired into the built-in tools, and the folder's saved sessions for session/list.

The rest of app/acp talks to a session only through the engine's front-end API.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.acp.client_fs import ClientEditTool, ClientFiles, ClientReadTool, ClientWriteTool
from app.acp.client_terminal import ClientBashTool, ClientTerminals
from app.engine.api import EngineEvent
from app.engine.setup import SessionSetup
from tools.base import Tool, ToolContext
from tools.bash import BashTool
from tools.edit import EditTool
from tools.read import ReadTool
from tools.write import WriteTool

if TYPE_CHECKING:
    # The parsed command line, for annotations only: the face layer above calls in with it.
    from app.cli import CliOptions


@dataclass
class Capabilities:
    """What the client offers; a method present means the client said it supports it."""

    files: ClientFiles
    terminals: ClientTerminals | None


class ToolAdapter:
    """Sees every built-in tool as the session is built: keeps it (by name, so the update
    builder can ask a tool what kind of work a call is) and puts the client-backed twin in the
    place of Read, Edit, Write and Bash where the client offers what the twin needs."""

    def __init__(
        self, caps: Capabilities, running: Callable[[str], None] = lambda _id: None
    ) -> None:
        self.caps = caps
        self.running = running
        self.tools: dict[str, Tool[Any]] = {}

    def __call__(self, tool: Tool[Any]) -> Tool[Any]:
        files, terminals = self.caps.files, self.caps.terminals
        twin: Tool[Any] = tool
        if type(tool) is ReadTool and files.read is not None:
            twin = ClientReadTool(files)
        elif type(tool) is EditTool and files.read is not None and files.write is not None:
            twin = ClientEditTool(files)
        elif type(tool) is WriteTool and files.read is not None and files.write is not None:
            twin = ClientWriteTool(files)
        elif type(tool) is BashTool and terminals is not None:
            twin = ClientBashTool(terminals)
        self.tools[twin.name] = twin
        self._report_runs(twin)
        return twin

    def _report_runs(self, tool: Tool[Any]) -> None:
        """`running(tool_use_id)` as the tool's `call` begins: the engine calls it once the
        call is allowed, so the client sees a call run only when it does."""
        original = tool.call
        running = self.running

        async def call(input: Any, context: ToolContext, *args: Any, **kwargs: Any) -> Any:
            running(context.tool_use_id)
            return await original(input, context, *args, **kwargs)

        # On this session's instance only (the adapter sees each tool as the session is built).
        setattr(tool, "call", call)  # noqa: B010


def build(
    opts: CliOptions, cwd: str, sink: Callable[[EngineEvent], None], adapter: ToolAdapter
) -> SessionSetup:
    """A session in `cwd` (resuming `opts.resume` if set). Not interactive in the engine's
    sense (broken settings fail closed, no offline demo, the project's settings honoured as
    with -p), but with someone to ask: questions arrive as PermissionRequested."""
    from app.compose import build_session

    return build_session(
        opts, interactive=False, ask_user=True, cwd=cwd, sink=sink, adapt_tool=adapter
    )


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
