"""The Tool contract: one narrow interface with fail-closed declarations.

A tool does exactly one thing with side effects, `call`. Everything else is a declaration that
answers a question of the systems around it (the scheduler, the permission system, the UI), and
every declaration has a default chosen so that a tool which forgets to declare something makes
those systems more careful, never less: not concurrency-safe, not read-only, blocking on
interrupt, and "no opinion" on permissions so that the general rules and mode decide.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from tools.abort import AbortSignal
from tools.decisions import PermissionDecision, ValidationResult
from tools.interaction import UserInteraction

# What a tool is described and checked by, kept beside the contract and named from it.
# (re-exported, `as` itself: tools and their callers import these from the contract)
from tools.schema import PROMPTS_DIR as PROMPTS_DIR
from tools.schema import api_schema as api_schema
from tools.schema import content_text as content_text
from tools.schema import format_validation_error as format_validation_error
from tools.schema import load_prompt as load_prompt

if TYPE_CHECKING:
    from tools.subagent import AgentSummary, SubagentRunner

InterruptBehavior = Literal["cancel", "block"]
# Which family of permission rules judges a call: Bash's command rules, path rules for reading or
# writing, URL (domain) rules, or the generic rules by tool name. Generic is the fail-closed
# default: it allows only what a rule allows or what the tool declares read-only.
PermissionKind = Literal["shell", "path_read", "path_write", "url", "generic"]
# How much below its path a path_read tool sees: only the path, the names of what lies below
# (Glob), or the contents of what lies below (Grep). A deny rule for anything below denies it.
PathReach = Literal["path", "names", "contents"]
FileView = Literal["none", "read", "write"]

DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000


class ToolInput(BaseModel):
    """Base for tool input models: unknown fields are refused, numbers given as strings coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


InputT = TypeVar("InputT")


@dataclass(frozen=True)
class ToolProgress:
    """One progress report from a running tool, sent sideways through `on_progress`.

    `text` is a one-line status for the progress panel; `output` a chunk of new output (Bash);
    `fraction` a determinate progress in [0, 1] where the tool knows it.
    """

    text: str = ""
    output: str = ""
    fraction: float | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """What `call` returns. `context_modifier` changes the context for later calls (Bash's `cd`)."""

    data: Any
    is_error: bool = False
    context_modifier: Callable[[ToolContext], ToolContext] | None = None
    # Blocks that follow the tool_result in the same user message (a skill's instructions).
    extra_content: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class ToolPreview:
    """What a call will do, shown before it runs (the permission dialog, the queued call).

    `command` is a shell command, `diff` a unified diff against the file as it is on disk, `text`
    anything else (the input's fields). Computing it may read files: callers run it off the UI
    loop (asyncio.to_thread)."""

    kind: Literal["command", "diff", "text"]
    text: str
    path: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class CallLabel:
    """A call on one line, as tool blocks and panel rows show it (computed without I/O, when the
    call is queued): `text` is what runs or what it touches (a command, a path, a pattern),
    `language` its syntax for highlighting ("bash"), `note` a dimmed aside (Bash's description)."""

    text: str
    language: str | None = None
    note: str = ""


OutputFocus = Literal["head", "tail"]


@dataclass(frozen=True)
class ResultView:
    """What a finished call shows: a one-line `summary` for the collapsed line, and a `body`."""

    summary: str
    body: str = ""
    kind: Literal["text", "diff", "image", "error"] = "text"
    # A file holding the whole output when `body` is only part of it (a spilled Bash output).
    full_path: str | None = None


class ToolError(Exception):
    """Raised by `call` for a failure the model should read (becomes an `is_error` tool_result)."""

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class InputError(Exception):
    """The model's input does not fit the tool's schema; `message` is written for the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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


CanUseTool = Callable[["Tool[Any]", Mapping[str, Any], ToolContext], Awaitable[PermissionDecision]]
ProgressCallback = Callable[[ToolProgress], None]


# ---------------------------------------------------------------------------------------------
# The Tool base class
# ---------------------------------------------------------------------------------------------


class Tool(Generic[InputT]):
    """Base class of every tool. Subclasses set `name` and `input_model` and implement `call`."""

    # Plain class attributes (not ClassVar) so that JSON-schema tools can set them per instance.
    name: str = ""
    aliases: tuple[str, ...] = ()
    search_hint: str = ""
    input_model: ClassVar[type[BaseModel] | None] = None
    max_result_size_chars: ClassVar[float] = DEFAULT_MAX_RESULT_SIZE_CHARS
    # A failure of this tool cancels the other tools of its batch (Bash: a failed `mkdir` makes
    # the commands after it pointless). Other tools fail on their own.
    cancels_siblings_on_error: ClassVar[bool] = False
    is_mcp: bool = False
    # Input fields the tool uses internally that the model must never set; stripped before
    # anything (hooks, rules, the call) sees the input.
    internal_fields: tuple[str, ...] = ()
    should_defer: bool = False
    always_load: bool = False
    # The permission declarations: which rule family judges a call (generic fails closed), the
    # observable-input field holding what those rules match (the backfilled, absolute form that
    # hooks see too), and how far below its path a path_read tool reads.
    permission_kind: ClassVar[PermissionKind] = "generic"
    subject_field: ClassVar[str | None] = None
    path_reach: ClassVar[PathReach] = "path"
    # What context management needs, declared here so the engine never lists tools by name:
    # `file_view` is what a successful call leaves the model knowing of the one file its
    # subject_field names ("read": its text, within the input's offset/limit; "write": its new
    # text; compaction re-reads the newest such files), `refetchable` that calling again with the
    # same input gets the result again (an old result may be cleared to save context).
    file_view: ClassVar[FileView] = "none"
    refetchable: ClassVar[bool] = False
    # A call works on the one file its subject_field names (Read, Edit, Write, NotebookEdit):
    # nested memory loads that file's folders' CLAUDE.md files and `paths:` rules
    # (app/memory/nested.py reads `touched_file`, never a list of tool names).
    touches_file: ClassVar[bool] = False
    # The tool starts subagents: the engine hands it a runner (context.subagents).
    runs_subagents: ClassVar[bool] = False
    # The tool invokes the session's skills: a prompt lists them only beside such a tool, and the
    # tool is dropped when no skill may be invoked (app/compose.py, app/engine/subagents.py).
    offers_skills: ClassVar[bool] = False
    # Usable in plan mode though not read-only (Skill: it loads instructions; what they lead to
    # is judged call by call, plan mode included). Read by app/permissions/decider.py.
    usable_in_plan_mode: ClassVar[bool] = False
    # What a specifier rule's subject is called in its deny text ("Agent type" gives Claude
    # Code's "Agent type 'X' has been denied by permission rule ..."); None: the generic text.
    denied_subject_label: ClassVar[str | None] = None

    def touched_file(self, raw: Mapping[str, Any]) -> str | None:
        """The file a call of a `touches_file` tool works on, as the model wrote it; None when
        the tool touches no file or the input names none."""
        if not self.touches_file or self.subject_field is None:
            return None
        value = raw.get(self.subject_field)
        return value if isinstance(value, str) and value else None

    def with_agents(self, agents: tuple[AgentSummary, ...]) -> Tool[InputT]:
        """This tool once the session knows its agent types: a tool whose description lists
        them returns a copy that does; the others are unchanged."""
        return self

    # -- identity and schema ------------------------------------------------------------------

    def description(self) -> str:
        """The model-facing description, from tools/prompts/NAME.md."""
        return load_prompt(self.name)

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema sent to the API, derived from the input model."""
        if self.input_model is None:
            raise NotImplementedError(f"{type(self).__name__} has no input model")
        return api_schema(self.input_model)

    def parse_input(self, raw: Mapping[str, Any]) -> InputT:
        """Validate the model's input. Raises InputError with a message the model can act on."""
        if self.input_model is None:
            raise NotImplementedError(f"{type(self).__name__} has no input model")
        try:
            parsed = self.input_model.model_validate(dict(raw))
        except ValidationError as exc:
            raise InputError(format_validation_error(self.name, exc)) from None
        return parsed  # type: ignore[return-value]

    def dump_input(self, value: InputT) -> dict[str, Any]:
        if isinstance(value, BaseModel):
            return value.model_dump(mode="json", by_alias=True, exclude_none=True)
        if isinstance(value, Mapping):
            return dict(value)
        raise TypeError(f"cannot dump input of type {type(value).__name__}")

    # -- declarations with fail-closed defaults --------------------------------------------------

    def is_enabled(self) -> bool:
        return True

    def is_concurrency_safe(self, input: InputT) -> bool:
        return False

    def is_read_only(self, input: InputT) -> bool:
        return False

    def is_destructive(self, input: InputT) -> bool:
        return False

    def is_destructive_at(self, input: InputT, cwd: str) -> bool:
        """is_destructive for a call that runs in `cwd`: a tool whose answer depends on what is
        there (an overwrite destroys an existing file; a new file destroys nothing) overrides it."""
        return self.is_destructive(input)

    def interrupt_behavior(self) -> InterruptBehavior:
        return "block"

    async def check_permissions(self, input: InputT, context: ToolContext) -> PermissionDecision:
        """The tool's own permission opinion. Default: none, the general system decides."""
        return PermissionDecision.passthrough()

    def user_facing_name(self, input: InputT | None = None) -> str:
        return self.name

    def user_interaction(self, input: InputT) -> UserInteraction | None:
        """What the user must answer beyond allow/deny (questions, a plan to approve), carried on
        the permission question so the front end picks its dialog by type. Default: nothing."""
        return None

    # -- optional questions ------------------------------------------------------------------------

    async def validate_input(self, input: InputT, context: ToolContext) -> ValidationResult:
        """Business rules only the tool knows. No I/O that must wait for approval."""
        return ValidationResult.success()

    def backfill_observable_input(self, input: dict[str, Any], context: ToolContext) -> None:
        """Normalise a copy of the input for observers (hooks, rules): absolute paths, `~`."""
        return None

    def permission_subject(self, input: InputT) -> str | None:
        """What permission rule specifiers are matched against: the command (shell), the path
        (path kinds), the URL (url), or a tool-defined string (generic). None: nothing to match."""
        return None

    def permission_path(self, input: InputT, subject: str) -> str:
        """The folder or file a path tool really reaches, given its absolute subject: the
        subject itself, except for a tool whose other input leads elsewhere (Glob's pattern
        `../*` or `~/.ssh/*` reads beside or far from its `path`)."""
        return subject

    def permission_subject_names(self, input: InputT, context: ToolContext) -> tuple[str, ...]:
        """Other names the call's subject goes by, matched by the same rules (a skill's folder
        and frontmatter names): a rule written with any of them holds for the call."""
        return ()

    def summary(self, input: InputT) -> str:
        """One line for the UI: what this call does."""
        return ""

    def label(self, input: InputT) -> CallLabel:
        """The call on one line for the UI. Default: the summary."""
        return CallLabel(self.summary(input))

    # Which end of a long output the collapsed block shows: the newest lines of a log (Bash),
    # or the first of a listing (the default).
    output_focus: ClassVar[OutputFocus] = "head"

    def preview(self, input: InputT, context: ToolContext) -> ToolPreview | None:
        """What this call will do, for the approval dialog. May read files (run it off the UI
        loop). Default: the input's fields, one a line."""
        try:
            fields = self.dump_input(input)
        except TypeError:
            return None
        return ToolPreview("text", "\n".join(f"{k}: {_short(v)}" for k, v in fields.items()))

    def result_summary(self, data: Any) -> str:
        """A short text for the collapsed result line; "" for the result's first line."""
        return ""

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        """What the UI shows of a finished call: the summary line and the result's text (the
        error's, when it failed). Tools with a diff or an image override it."""
        text = content_text(data if isinstance(data, str) else self.to_result_content(data))
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        if is_error:
            return ResultView(first[:200], text, "error")
        return ResultView(self.result_summary(data) or first[:200], text)

    def result_from_record(self, recorded: Any, content: str) -> Any | None:
        """The call's result data rebuilt from what a transcript kept of it (its `toolUseResult`
        JSON, the shape `hook_response` gives) and the text the model read, so a resumed call
        shows this tool's view again; None: not rebuilt (the view shows the model's text)."""
        return None

    def output_tail(self, data: Any) -> str | None:
        """The end of the output a finished call printed, when the tool keeps one (Bash keeps
        its last lines); None: the view keeps what the progress reports streamed."""
        return None

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        """The tool_result content: a string, or a list of text/image blocks."""
        if isinstance(data, str):
            return data
        if isinstance(data, BaseModel):
            return data.model_dump_json()
        return json.dumps(data, ensure_ascii=False, default=str)

    def to_result_block(
        self, data: Any, tool_use_id: str, is_error: bool = False
    ) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": self.to_result_content(data),
        }
        if is_error:
            block["is_error"] = True
        return block

    # -- the one action --------------------------------------------------------------------------

    async def call(
        self,
        input: InputT,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        raise NotImplementedError

    # -- API shape ---------------------------------------------------------------------------------

    def api_definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description(),
            "input_schema": self.input_schema(),
        }

    def matches_name(self, name: str) -> bool:
        return name == self.name or name in self.aliases


class ReadOnlyTool(Tool[InputT]):
    """A tool that only looks: it may run beside any other safe tool, and the permission system
    may allow it without asking. An explicit declaration, so the defaults stay fail-closed."""

    def is_read_only(self, input: InputT) -> bool:
        return True

    def is_concurrency_safe(self, input: InputT) -> bool:
        return True


class JsonSchemaTool(Tool[dict[str, Any]]):
    """A tool whose input is described by a JSON Schema (MCP tools), validated with jsonschema."""

    def __init__(self, name: str, description: str, schema: Mapping[str, Any]) -> None:
        self.name = name
        self._description = description
        self.input_json_schema: dict[str, Any] = dict(schema)

    def description(self) -> str:
        return self._description

    def input_schema(self) -> dict[str, Any]:
        return self.input_json_schema

    def parse_input(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        import jsonschema

        value = dict(raw)
        validator_cls = jsonschema.validators.validator_for(self.input_json_schema)
        validator = validator_cls(self.input_json_schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
        if errors:
            lines = []
            for err in errors:
                where = "/".join(str(p) for p in err.path) or "(root)"
                lines.append(f"{where}: {err.message}")
            raise InputError(
                f"InputValidationError: {self.name} failed due to the following "
                f"issue{'s' if len(lines) > 1 else ''}:\n" + "\n".join(lines)
            )
        return value


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
