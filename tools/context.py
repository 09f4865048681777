"""What a tool call may reach of the application: the ToolContext and the services in it.

Split from tools/base.py (the Tool contract), which re-exports every name here, so tools and their
callers keep importing them from tools.base. The application implements the Protocols; the
defaults are the fail-closed or inert ones a context without an engine behind it gets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tools.abort import AbortSignal
from tools.decisions import PermissionDecision

if TYPE_CHECKING:
    from tools.base import Tool
    from tools.subagent import SubagentRunner


# ---------------------------------------------------------------------------------------------
# What a tool may reach of the application: Protocols, implemented by the application.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadRecord:
    """What Read saw of a file, so Edit and Write can refuse to change what nobody read."""

    path: str
    mtime_ns: int
    content_hash: str
    full: bool
    offset: int | None = None
    limit: int | None = None


class ReadFileState(Protocol):
    def get(self, path: str) -> ReadRecord | None: ...

    def record(self, record: ReadRecord) -> None: ...

    def forget(self, path: str) -> None: ...


class PermissionView(Protocol):
    """The permission questions a tool may ask while validating or running."""

    def check_path(
        self, tool_name: str, path: str, access: Literal["read", "write"]
    ) -> PermissionDecision:
        """A deny for a path that rules deny; otherwise passthrough (never a silent allow)."""
        ...

    def is_in_working_dirs(self, path: str) -> bool: ...

    def mode(self) -> str:
        """The session's permission mode now (ExitPlanMode works only in "plan")."""
        ...


class BackgroundTask(Protocol):
    """Something a tool left running (a background shell): BashOutput reads it, TaskStop ends it."""

    @property
    def id(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def kind(self) -> str:
        """ "shell" or "agent" (a background subagent: the session waits for its result)."""
        ...

    async def stop(self) -> None: ...


class BackgroundTasks:
    """The session's background tasks by id (shared by every context of the session)."""

    def __init__(self) -> None:
        self._tasks: dict[str, BackgroundTask] = {}
        # The session's: shows the user a task's end in the words its tool declared (a
        # background command's "completed (exit code 0)", as Claude Code says it).
        self.on_finished: Callable[[str], None] | None = None

    def report_finished(self, words: str) -> None:
        """A task ended by itself (not stopped): `words` say so to the user."""
        if self.on_finished is not None:
            self.on_finished(words)

    def add(self, task: BackgroundTask) -> None:
        self._tasks[task.id] = task

    def get(self, task_id: str) -> BackgroundTask | None:
        return self._tasks.get(task_id)

    def all(self) -> list[BackgroundTask]:
        return list(self._tasks.values())

    async def stop_all(self) -> None:
        for task in list(self._tasks.values()):
            await task.stop()


class ReadFileCache:
    """The default ReadFileState: a dict of absolute path to what was read."""

    def __init__(self) -> None:
        self._records: dict[str, ReadRecord] = {}

    def get(self, path: str) -> ReadRecord | None:
        return self._records.get(path)

    def record(self, record: ReadRecord) -> None:
        self._records[record.path] = record

    def forget(self, path: str) -> None:
        self._records.pop(path, None)


class AllowAllPaths:
    """A PermissionView with no rules: nothing denied, everything inside the working folders."""

    def check_path(
        self, tool_name: str, path: str, access: Literal["read", "write"]
    ) -> PermissionDecision:
        return PermissionDecision.passthrough()

    def is_in_working_dirs(self, path: str) -> bool:
        return True

    def mode(self) -> str:
        return "default"


@dataclass(frozen=True)
class ToolOptions:
    """Knobs from settings and environment that tools read."""

    bash_default_timeout_ms: int = 120_000
    bash_max_timeout_ms: int = 600_000
    simple_mode: bool = False
    web_fetch_timeout_s: float = 30.0
    web_fetch_max_bytes: int = 10 * 1024 * 1024
    extra: Mapping[str, Any] = field(default_factory=dict)


EventSink = Callable[[object], None]
# A one-off question to a small, fast model (WebFetch answers its prompt from a page with it).
# None where no model can be asked (offline models): tools then fall back to doing without.
SideQuery = Callable[[str], Awaitable[str]]


@dataclass(frozen=True)
class WebSearchRequest:
    """One search for the API's server-side web search tool (`web_search_20250305`)."""

    query: str
    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()
    max_uses: int = 8


class WebSearchUnavailable(Exception):
    """The endpoint has no server-side web search (or it was switched off); `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# Runs a search as a side request and returns the response's content blocks (text,
# server_tool_use, web_search_tool_result) as plain dicts. None where no API can be asked.
WebSearcher = Callable[[WebSearchRequest], Awaitable[list[dict[str, Any]]]]


def _drop_event(event: object) -> None:
    return None


class TextFiles(Protocol):
    """Where the file tools (Read, Edit, Write) read and write the text files it serves, in place
    of the local disk: a front end supplies one through the session's options (ACP: the editor's
    buffers, over fs/read_text_file and fs/write_text_file, unsaved changes included). The tools
    keep every rule (validation, must-read-first, staleness, results); only the I/O moves.
    Images, PDFs, notebooks and folders stay on the disk (`serves` says no)."""

    def serves(self, path: str, access: Literal["read", "write"]) -> bool:
        """Whether this call's file goes through here (a text file the front end can give and,
        for "write", both read and write)."""
        ...

    async def read_text(self, path: str) -> str: ...

    async def write_text(self, path: str, text: str) -> None: ...


class Terminals(Protocol):
    """Where Bash runs a foreground command in place of a local process: a front end supplies
    one through the session's options (ACP: the editor's terminal/* methods, shown live in the
    editor). Bash keeps its rules (timeout, interrupt, result text); only the process moves.
    Background commands stay local (BashOutput and TaskStop manage lathe's own processes)."""

    async def create(self, command: str, cwd: str, output_limit: int) -> str:
        """Start `command` in `cwd`; the terminal's id."""
        ...

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        """Its exit: (exit code, signal)."""
        ...

    async def output(self, terminal_id: str) -> tuple[str, bool]:
        """What it printed, and whether the front end cut it."""
        ...

    async def kill(self, terminal_id: str) -> None: ...

    async def release(self, terminal_id: str) -> None: ...

    def shown(self, tool_use_id: str, terminal_id: str) -> None:
        """The call's terminal, for the front end to show in the tool call."""
        ...


@dataclass(frozen=True)
class ToolContext:
    """The world a call runs in. Immutable: a context modifier returns a new one.

    Mutable session services (read-file state, background tasks) are shared references; the
    per-call fields (`abort`, `tool_use_id`) are set by the executor for each call.
    """

    cwd: str
    project_dir: str
    working_dirs: tuple[str, ...]
    session_id: str = "local"
    session_dir: str = ""
    read_files: ReadFileState = field(default_factory=ReadFileCache)
    permissions: PermissionView = field(default_factory=AllowAllPaths)
    background: BackgroundTasks = field(default_factory=BackgroundTasks)
    options: ToolOptions = field(default_factory=ToolOptions)
    tools: tuple[Tool[Any], ...] = ()
    emit: EventSink = _drop_event
    side_query: SideQuery | None = None
    web_search: WebSearcher | None = None
    # The text files a front end serves in place of the disk (None: the disk for everything).
    text_files: TextFiles | None = None
    # The terminals a front end runs Bash's foreground commands in (None: local processes).
    terminals: Terminals | None = None
    # Runs the Agent tool's child conversations; None inside a subagent (no nesting) and
    # wherever no engine is behind the tools.
    subagents: SubagentRunner | None = None
    abort: AbortSignal = field(default_factory=AbortSignal)
    tool_use_id: str = ""
    # Free-form state that context modifiers carry between calls (kept small and immutable).
    state: Mapping[str, Any] = field(default_factory=dict)

    def with_call(self, tool_use_id: str, abort: AbortSignal) -> ToolContext:
        return replace(self, tool_use_id=tool_use_id, abort=abort)

    def resolve_path(self, path: str) -> str:
        """Expand `~` and make `path` absolute against the current working folder."""
        p = Path(path).expanduser()
        if not p.is_absolute():
            p = Path(self.cwd) / p
        return str(Path(_normpath(str(p))))


def _normpath(path: str) -> str:
    # `..` as the kernel resolves it (after a symlink, the target's parent), not as text.
    from tools.files.paths import kernel_normpath

    return kernel_normpath(path)
