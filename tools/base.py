"""The Tool contract: one narrow interface with fail-closed declarations.

A tool does exactly one thing with side effects, `call`. Everything else is a declaration that
answers a question of the systems around it (the scheduler, the permission system, the UI), and
every declaration has a default chosen so that a tool which forgets to declare something makes
those systems more careful, never less: not concurrency-safe, not read-only, blocking on
interrupt, and "no opinion" on permissions so that the general rules and mode decide.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    Protocol,
    TypeVar,
    runtime_checkable,
)

from pydantic import BaseModel, ConfigDict, ValidationError

from tools.context import (
    AllowAllPaths as AllowAllPaths,
)
from tools.context import (
    BackgroundTask as BackgroundTask,
)
from tools.context import (
    BackgroundTasks as BackgroundTasks,
)
from tools.context import (
    EventSink as EventSink,
)
from tools.context import (
    PermissionView as PermissionView,
)
from tools.context import (
    ReadFileCache as ReadFileCache,
)
from tools.context import (
    ReadFileState as ReadFileState,
)
from tools.context import (  # re-exported: the contract's callers import them from here
    ReadRecord as ReadRecord,
)
from tools.context import (
    SideQuery as SideQuery,
)
from tools.context import (
    Terminals as Terminals,
)
from tools.context import (
    TextFiles as TextFiles,
)
from tools.context import (
    ToolContext as ToolContext,
)
from tools.context import (
    ToolOptions as ToolOptions,
)
from tools.context import (
    WebSearcher as WebSearcher,
)
from tools.context import (
    WebSearchRequest as WebSearchRequest,
)
from tools.context import (
    WebSearchUnavailable as WebSearchUnavailable,
)
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
    from tools.subagent import AgentSummary

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


@runtime_checkable
class HookShaped(Protocol):
    """Result data with Claude Code's shape for it, an optional interface a tool's data may
    declare (Bash's `{stdout, stderr, interrupted, ...}`, Write's and Edit's patches): hooks read
    it as `tool_response` and the transcript keeps it as `toolUseResult`. Data without it goes
    as it is."""

    def hook_response(self) -> Any: ...


@dataclass(frozen=True)
class ToolResult:
    """What `call` returns. `context_modifier` changes the context for later calls (Bash's `cd`)."""

    data: Any
    is_error: bool = False
    context_modifier: Callable[[ToolContext], ToolContext] | None = None
    # Blocks that follow the tool_result in the same user message (a skill's instructions).
    extra_content: tuple[Mapping[str, Any], ...] = ()


# What kind of work a call is, for a front end's icon or grouping (ACP's ToolKind, word for word).
CallKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]


@dataclass(frozen=True)
class CallLocation:
    """A file a call reads or changes (and the line it starts at, when the input says)."""

    path: str
    line: int | None = None


@dataclass(frozen=True)
class FileDiff:
    """A change to one file as whole texts: `old_text` is the file as it was (None: the call
    creates it), `new_text` the file after the call."""

    path: str
    old_text: str | None
    new_text: str


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
    # A file change as whole texts (the file on disk and what the call would make of it), for a
    # front end that shows a diff its own way (ACP's editor).
    change: FileDiff | None = None


@dataclass(frozen=True)
class CallLabel:
    """A call on one line, as tool blocks and panel rows show it (computed without I/O, when the
    call is queued): `text` is what runs or what it touches (a command, a path, a pattern),
    `language` its syntax for highlighting ("bash"), `note` a dimmed aside (Bash's description),
    `stat` the change the input says it makes ("+2 -1", an Edit's), before any diff is read."""

    text: str
    language: str | None = None
    note: str = ""
    stat: str = ""


OutputFocus = Literal["head", "tail"]


@dataclass(frozen=True)
class ResultView:
    """What a finished call shows: a one-line `summary` for the collapsed line, and a `body`."""

    summary: str
    body: str = ""
    kind: Literal["text", "diff", "image", "error"] = "text"
    # A file holding the whole output when `body` is only part of it (a spilled Bash output).
    full_path: str | None = None
    # The body is the tool's words for the person (a plan, the answers, a subagent's report),
    # shown instead of the text written for the model (whose framing and instructions are not).
    own_body: bool = False
    # The change the call made as whole texts (Write's and Edit's), for a front end's diff view.
    change: FileDiff | None = None


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
    # Whether `is_read_only` alone lets a call run without a rule. False where read-only is the
    # claim of someone else's code (an MCP server's readOnlyHint): Claude Code 2.1.332 asks for
    # such a tool in every mode but bypass, and so does lathe. Read by app/permissions/decider.py.
    read_only_allows: ClassVar[bool] = True
    # Whether the session finds the call's subject without regard to case (the Agent tool takes
    # `explore` for `Explore`): deny and ask rules then match it case-blind too, so a changed
    # case never reaches what a rule denies. Allow rules stay exact. Read by the decider.
    subject_case_blind: ClassVar[bool] = False

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

    def rule_specifier_matches(self, spec: str, name: str) -> bool:
        """Whether a `Tool(spec)` rule's specifier covers the call's subject `name`; default a
        case-sensitive glob (`fnmatch.fnmatchcase`). A tool with its own rule syntax overrides it
        (Skill: Claude Code's `name:*` prefix form)."""
        return fnmatch.fnmatchcase(name, spec)

    def permission_subject_names(self, input: InputT, context: ToolContext) -> tuple[str, ...]:
        """Other names the call's subject goes by, matched by the same rules (a skill's folder
        and frontmatter names): a rule written with any of them holds for the call."""
        return ()

    def summary(self, input: InputT) -> str:
        """One line for the UI: what this call does."""
        return ""

    def call_kind(self) -> CallKind:
        """What kind of work this tool's calls are. Default: from the permission declarations (a
        shell runs, a path_write edits, a url fetches; a path_read reads one file or searches)."""
        kind = self.permission_kind
        if kind == "shell":
            return "execute"
        if kind == "path_write":
            return "edit"
        if kind == "url":
            return "fetch"
        if kind == "path_read":
            return "read" if self.path_reach == "path" else "search"
        return "other"

    def locations(self, input: InputT) -> tuple[CallLocation, ...]:
        """The files this call reads or changes, without I/O. Default: a path tool's subject."""
        if self.permission_kind not in ("path_read", "path_write"):
            return ()
        subject = self.permission_subject(input)
        return (CallLocation(subject),) if subject else ()

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

    def recorded_view(self, input: InputT, applied: bool, cwd: str) -> ResultView | None:
        """On resume, the diff a recorded call made (`applied`) or the user denied, rebuilt
        from its input (the result data is not kept); None: none. May read files: the front ends
        call it (through the session's history()) off their UI loop, in a worker thread."""
        return None

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
