"""Hook configuration: Claude Code's `hooks` shape, from lathe's TOML or Claude Code's JSON files.

    hooks = { PreToolUse = [ { matcher = "Bash|Edit", hooks = [
        { type = "command", command = "./check.sh", timeout = 30 } ] } ] }

Each source is parsed on its own; a malformed entry is reported (file and place) and skipped, the
good entries of the same file still load. Project sources are ignored until the workspace is
trusted, since a cloned repository must not run code just because lathe was started in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from app.config.loader import PROJECT_SOURCES, SOURCE_LABELS, SettingsProblem
from app.config.rules import RuleError, parse_rule

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
    "PermissionRequest",
    "SubagentStart",
    "SubagentStop",
    "PostToolBatch",
    "InstructionsLoaded",
]
HOOK_EVENTS: tuple[HookEvent, ...] = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
    "PermissionRequest",
    "SubagentStart",
    "SubagentStop",
    "PostToolBatch",
    "InstructionsLoaded",
)
# SubagentStart and SubagentStop are parsed and wired (CommandHookRunner.subagent_start/stop);
# they fire once the Agent tool runs subagents.
_KNOWN_ELSEWHERE: frozenset[str] = frozenset()
# Events whose matcher is meaningful, and what it is matched against (as Claude Code): the tool
# name, the SessionStart source, the SessionEnd reason, the PreCompact trigger, the
# notification_type, the subagent's agent_type.
MATCHED_EVENTS: frozenset[str] = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SessionStart",
        "SessionEnd",
        "PreCompact",
        "Notification",
        "PermissionRequest",
        "SubagentStart",
        "SubagentStop",
        "InstructionsLoaded",
    }
)
DEFAULT_TIMEOUT_S = 600.0
# Claude Code 2.1.332's test for a list of names on a tool event: name characters, `|`, `,`,
# `-` and spaces; the list is split on `|` and `,` and each name trimmed (read from its source
# and measured: `"Write,Edit,MultiEdit"` and `"Bash, Read"` fire, ext-r5 F15).
_EXACT_NAMES = re.compile(r"[A-Za-z0-9_|, \-]+")
_NAME_SEPARATORS = re.compile(r"[|,]")


@dataclass(frozen=True)
class Matcher:
    """Empty or `*`: everything. Only name characters, `|` and `,`: a list of exact names (so
    `Edit` never matches `NotebookEdit`). Else a regex found anywhere in the name, as Claude
    Code's `new RegExp(m).test(name)`: `B*` matches every tool, `Ed.t` matches MultiEdit."""

    text: str
    names: frozenset[str] | None = None
    pattern: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, text: str) -> Matcher:
        """Raises re.error for an invalid regex."""
        text = text.strip()
        if text in ("", "*"):
            return cls(text)
        if _EXACT_NAMES.fullmatch(text):
            names = (p.strip() for p in _NAME_SEPARATORS.split(text))
            return cls(text, names=frozenset(p for p in names if p))
        return cls(text, pattern=re.compile(text))

    def matches(self, value: str) -> bool:
        if self.names is not None:
            return value in self.names
        if self.pattern is not None:
            return self.pattern.search(value) is not None
        return True


@dataclass(frozen=True)
class HookHandler:
    """One command to run, with where it was configured."""

    event: HookEvent
    matcher: Matcher
    command: str  # a command hook's command; a prompt hook's prompt; an http hook's URL
    timeout: float
    source: str
    path: str
    kind: str = "command"  # "command", "prompt", "http" (app/hooks/remote.py)
    model: str = ""  # a prompt hook's model ("": the small fast model)
    headers: tuple[tuple[str, str], ...] = ()  # an http hook's headers
    allowed_env: tuple[str, ...] = ()  # the variables an http hook's headers may name
    env: tuple[tuple[str, str], ...] = ()  # set in a command hook's environment (plugins)
    # Claude Code's handler `if`: a permission rule (`Bash(git commit:*)`); on a tool event the
    # handler runs only for calls the rule matches, on any other event never (its docs, and
    # 2.1.332 measured: ext-r3 F6). "": no condition.
    condition: str = ""
    # Claude Code's exec form (`"command": "bash", "args": [...]`): the program is started with
    # these arguments as they are, no shell, the hook JSON on stdin (2.1.332 measured: `$HOME`
    # and `~` in an argument stay literal). None: `command` is a shell command line.
    args: tuple[str, ...] | None = None

    @property
    def shown(self) -> str:
        """The command as Claude Code names it in a block reason: the program and its args."""
        return " ".join((self.command, *self.args)) if self.args is not None else self.command

    @property
    def url(self) -> str:
        return self.command if self.kind == "http" else ""

    @property
    def label(self) -> str:
        """How notices and decision reasons name this hook."""
        return f"{self.event} hook `{_short(self.shown)}` ({source_label(self.source)})"


@dataclass(frozen=True)
class HookSource:
    """One settings file's raw `hooks` table, in precedence order with the others."""

    name: str
    path: str
    hooks: Any
    # A plugin's hooks run with CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA set (app/config/plugins.py).
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HookConfig:
    handlers: tuple[HookHandler, ...] = ()
    problems: tuple[SettingsProblem, ...] = ()
    # Handlers of project sources left out because the workspace is not trusted (for the UI).
    ignored: tuple[HookHandler, ...] = ()

    def for_event(self, event: HookEvent) -> tuple[HookHandler, ...]:
        return tuple(h for h in self.handlers if h.event == event)


@dataclass(frozen=True)
class HookListing:
    """The hooks of one source, for the UI's hook list."""

    source: str
    label: str
    path: str
    active: bool
    handlers: tuple[HookHandler, ...] = field(default_factory=tuple)


def source_label(name: str) -> str:
    return SOURCE_LABELS.get(name, name)


def _short(command: str, limit: int = 60) -> str:
    one_line = " ".join(command.split())
    # The end of a command names the script; keep that part.
    return one_line if len(one_line) <= limit else "…" + one_line[-(limit - 1) :]


def parse_hook_sources(
    sources: Iterable[HookSource | tuple[str, str, Any]], trusted: bool
) -> HookConfig:
    """Parse every source's raw hooks mapping, lowest precedence first."""
    handlers: list[HookHandler] = []
    ignored: list[HookHandler] = []
    problems: list[SettingsProblem] = []
    for item in sources:
        src = item if isinstance(item, HookSource) else HookSource(*item)
        found, errs = _parse_source(src)
        problems.extend(errs)
        if trusted or src.name not in PROJECT_SOURCES:
            handlers.extend(found)
        else:
            ignored.extend(found)
    return HookConfig(tuple(handlers), tuple(problems), tuple(ignored))


def hook_sources_from_settings(loaded: Any) -> list[HookSource]:
    """The sources of an `app.config.LoadedSettings`, in its (precedence) order."""
    out: list[HookSource] = []
    for src in loaded.sources:
        settings = src.settings
        if settings is None or not settings.hooks:
            continue
        out.append(HookSource(src.name, src.path or src.name, settings.hooks))
    return out


# The checked-in project files: in a folder nobody trusted they cannot turn the user's hooks off.
_SHARED_PROJECT_SOURCES = frozenset({"claude-project", "project"})


def drop_disabled_hooks(
    loaded: Any, sources: list[HookSource], confined: bool
) -> tuple[list[HookSource], list[str]]:
    """`disableAllHooks: true` in any settings file turns every hook off (plugins' too), as in
    Claude Code, except the policy's own unless the policy says so. A checked-in project file of
    a folder nobody trusted is not obeyed (a cloned repository could switch off the user's guard
    hooks). Returns the sources left and the notices to show."""
    notices: list[str] = []
    by: Any = None
    for src in loaded.sources:
        settings = src.settings
        if settings is None or settings.disable_all_hooks is not True:
            continue
        where = src.path or src.name
        if confined and (src.name in _SHARED_PROJECT_SOURCES or getattr(src, "checked_in", False)):
            notices.append(f"{where}: disableAllHooks ignored: this workspace has not been trusted")
            continue
        if by is None or src.name == "policy":
            by = src
    if by is None:
        return sources, notices
    kept = [] if by.name == "policy" else [s for s in sources if s.name == "policy"]
    if any(s.hooks for s in sources if s not in kept):
        notices.append(f"hooks are off: disableAllHooks in {by.path or by.name}")
    return kept, notices


def list_hooks(config: HookConfig) -> list[HookListing]:
    """Hooks grouped by source (in precedence order), active ones and ignored untrusted ones."""
    listings: list[HookListing] = []
    for active, group in ((True, config.handlers), (False, config.ignored)):
        order: dict[tuple[str, str], list[HookHandler]] = {}
        for h in group:
            order.setdefault((h.source, h.path), []).append(h)
        for (name, path), hs in order.items():
            listings.append(HookListing(name, source_label(name), path, active, tuple(hs)))
    return listings


def _parse_source(src: HookSource) -> tuple[list[HookHandler], list[SettingsProblem]]:
    handlers: list[HookHandler] = []
    problems: list[SettingsProblem] = []

    def problem(message: str, severity: Literal["error", "warning"] = "error") -> None:
        problems.append(SettingsProblem(src.path, message, source=src.name, severity=severity))

    if src.hooks is None:
        return handlers, problems
    if not isinstance(src.hooks, Mapping):
        problem(f"`hooks` must be a table of event names, not {_kind(src.hooks)}")
        return handlers, problems
    for event, entries in src.hooks.items():
        if event not in HOOK_EVENTS:
            if event in _KNOWN_ELSEWHERE:
                problem(f"hooks.{event}: lathe does not emit this event; ignored", "warning")
            else:
                problem(
                    f"hooks.{event}: unknown hook event (known: {', '.join(HOOK_EVENTS)})",
                    "warning",
                )
            continue
        if not isinstance(entries, Sequence) or isinstance(entries, str):
            problem(f"hooks.{event} must be a list of entries, not {_kind(entries)}")
            continue
        for i, entry in enumerate(entries):
            handlers.extend(_parse_entry(src, event, i, entry, problem))
    return handlers, problems


def _parse_entry(
    src: HookSource, event: HookEvent, index: int, entry: Any, problem: Any
) -> list[HookHandler]:
    where = f"hooks.{event}[{index}]"
    if not isinstance(entry, Mapping):
        problem(f"{where} must be a table with `matcher` and `hooks`, not {_kind(entry)}")
        return []
    raw_matcher = entry.get("matcher", "")
    if raw_matcher is None:
        raw_matcher = ""
    if not isinstance(raw_matcher, str):
        problem(f"{where}.matcher must be a string, not {_kind(raw_matcher)}")
        return []
    try:
        matcher = Matcher.parse(raw_matcher)
    except re.error as exc:
        problem(f"{where}.matcher {raw_matcher!r} is not a valid regular expression: {exc}")
        return []
    if raw_matcher.strip() not in ("", "*") and event not in MATCHED_EVENTS:
        problem(f"{where}.matcher is ignored: {event} hooks always run", "warning")
        matcher = Matcher("")
    inner = entry.get("hooks")
    if not isinstance(inner, Sequence) or isinstance(inner, str) or not inner:
        problem(f"{where}.hooks must be a non-empty list of handlers")
        return []
    out: list[HookHandler] = []
    for j, raw in enumerate(inner):
        handler = _parse_handler(src, event, matcher, f"{where}.hooks[{j}]", raw, problem)
        if handler is not None:
            out.append(handler)
    return out


def _parse_handler(
    src: HookSource, event: HookEvent, matcher: Matcher, where: str, raw: Any, problem: Any
) -> HookHandler | None:
    if not isinstance(raw, Mapping):
        problem(f"{where} must be a table with `type` and `command`, not {_kind(raw)}")
        return None
    kind = raw.get("type", "command")
    field_name = _MAIN_FIELD.get(kind) if isinstance(kind, str) else None
    if field_name is None:
        if kind == "agent" and event in ("PreToolUse", "PermissionRequest"):
            # A guard lathe cannot run would let every call through: the file is refused.
            problem(f'{where}: hook type "agent" is not supported; it would guard {event}')
            return None
        # Valid Claude Code that lathe cannot run: said, but not a broken file, so an existing
        # Claude Code setup still starts.
        problem(
            f"{where}: hook type {kind!r} is not supported (command, prompt, http); ignored",
            "warning",
        )
        return None
    main = raw.get(field_name)
    if not isinstance(main, str) or not main.strip():
        problem(f"{where}.{field_name} must be a non-empty string")
        return None
    default = DEFAULT_TIMEOUT_S if kind == "command" else _REMOTE_TIMEOUT_S
    timeout = raw.get("timeout", default)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        problem(f"{where}.timeout must be a positive number of seconds, not {timeout!r}")
        return None
    condition = raw.get("if", "")
    if not isinstance(condition, str):
        problem(
            f"{where}.if must be a permission rule such as Bash(git *); it never runs", "warning"
        )
        return None
    if condition.strip():
        try:
            parse_rule(condition, "allow")
        except RuleError as exc:
            # Claude Code 2.1.332 starts, and never runs such a handler (measured).
            problem(f"{where}.if is not a permission rule, the hook never runs: {exc}", "warning")
            return None
    args = raw.get("args")
    bad_args = not isinstance(args, list) or not all(isinstance(a, str) for a in args)
    if args is not None and kind == "command" and bad_args:
        # Run as a bare command it would read the hook JSON as a script (ext-r5 F12).
        problem(f"{where}.args must be a list of strings, not {_kind(args)}")
        return None
    handler = HookHandler(
        event,
        matcher,
        main,
        float(timeout),
        src.name,
        src.path,
        kind,
        env=src.env,
        condition=condition.strip(),
        args=tuple(args) if isinstance(args, list) and kind == "command" else None,
    )
    if kind == "prompt":
        model = raw.get("model", "")
        if not isinstance(model, str):
            problem(f"{where}.model must be a string, not {_kind(model)}")
            return None
        return replace(handler, model=model.strip())
    if kind == "http":
        if not main.startswith(("http://", "https://")):
            problem(f"{where}.url must be an http(s) URL, not {main!r}")
            return None
        headers = raw.get("headers", {})
        allowed = raw.get("allowedEnvVars", [])
        if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            problem(f"{where}.headers must be a table of strings")
            return None
        if not isinstance(allowed, list) or not all(isinstance(n, str) for n in allowed):
            problem(f"{where}.allowedEnvVars must be a list of variable names")
            return None
        return replace(handler, headers=tuple(headers.items()), allowed_env=tuple(allowed))
    return handler


# The field that holds each hook type's subject, and the time limit of the non-command types
# (Claude Code's prompt hooks default to 30 s).
_MAIN_FIELD = {"command": "command", "prompt": "prompt", "http": "url"}
_REMOTE_TIMEOUT_S = 30.0


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return f"{type(value).__name__} {value!r}"
