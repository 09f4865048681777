"""Read every settings source, lowest to highest precedence, and merge them.

A broken file (cannot be read, parsed or validated, or holds a rule or hook that does not parse)
is reported with file, line and problem and fails closed: the source is marked `broken` and keeps
only the deny and ask rules that could be read from it (see app.config.failclosed). `lathe -p`
refuses to run with a broken file; the TUI asks first. An unknown key is a warning only. The
Claude Code compat files are read for `permissions` and `hooks` only, never written.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from app import jsonlimits
from app.config.models import PermissionMode, Settings
from app.config.paths import config_dir, home_dir, policy_file, project_dir
from app.config.tracked import git_tracks
from tools.process.child_env import is_secret

# Lowest to highest precedence. The compat file of a level sits just below lathe's own file.
SOURCE_ORDER = (
    "claude-user",
    "user",
    "claude-project",
    "project",
    "claude-local",
    "local",
    "cli-settings",
    "cli",
    "policy",
)
SOURCE_LABELS = {
    "claude-user": "user settings (Claude Code)",
    "user": "user settings",
    "claude-project": "project settings (Claude Code)",
    "project": "project settings",
    "claude-local": "local project settings (Claude Code)",
    "local": "local project settings",
    "cli-settings": "--settings file",
    "cli": "command line",
    "policy": "managed policy settings",
    "session": "this session",
}
# Sources a repository controls: ignored for allow rules, hooks and widening knobs until trusted.
PROJECT_SOURCES = frozenset({"claude-project", "project", "claude-local", "local"})
# The checked-in ones (what a cloned repository brings; the local files are the user's own).
SHARED_PROJECT_SOURCES = frozenset({"claude-project", "project"})
_LOCAL_SOURCES = frozenset({"claude-local", "local"})
# What a checked-in file cannot set in a folder nobody trusted, headless too (settings.example.toml
# "Untrusted project files cannot set this"; cleanup reaches other projects' transcripts).
CONFINED_KEYS = {
    "env": "env",
    "passthrough_env": "passthrough_env",
    "api_key_helper": "apiKeyHelper",
    "status_line": "statusLine",
    "cleanup_period_days": "cleanupPeriodDays",
}

_COMPAT_PERMISSION_KEYS = {
    "allow",
    "deny",
    "ask",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
}


@dataclass(frozen=True)
class SettingsProblem:
    """A broken file, value or rule: says where and what, never crashes the session."""

    path: str
    message: str
    line: int | None = None
    source: str = ""
    severity: Literal["error", "warning"] = "error"
    column: int | None = None

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        label = SOURCE_LABELS.get(self.source, self.source)
        return f"{where}: {self.message}" + (f" ({label})" if label else "")


@dataclass(frozen=True)
class LoadedSource:
    name: str
    path: str | None
    settings: Settings | None
    # The folder `/x` path rules of this source are anchored to.
    base_dir: str
    exists: bool = False
    # The file has an error: `settings` holds only what could be salvaged (deny and ask rules,
    # restricting knobs), never its allow rules, hooks, env or servers.
    broken: bool = False
    # The file's text, for finding the line of a problem found after loading (a rule, a hook).
    text: str = ""
    # A "local" file git tracks (app/config/tracked.py): the repository ships it.
    checked_in: bool = False

    @property
    def shared(self) -> bool:
        """Whether a cloned repository brings this file: the checked-in project files, and a
        local file git tracks (judged by what it is, not by its name)."""
        return self.name in SHARED_PROJECT_SOURCES or self.checked_in


@dataclass(frozen=True)
class CliOverrides:
    """What the command line contributes (CONTRACT.md "Command line")."""

    settings_file: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    permission_mode: PermissionMode | None = None
    add_dirs: tuple[str, ...] = ()
    # --setting-sources (the SDK's): only these of user, project, local are read; None: all.
    setting_sources: tuple[str, ...] | None = None


@dataclass(frozen=True)
class LoadedSettings:
    project_dir: str
    sources: tuple[LoadedSource, ...]
    problems: tuple[SettingsProblem, ...] = ()
    cli: CliOverrides = field(default_factory=CliOverrides)

    @property
    def errors(self) -> tuple[SettingsProblem, ...]:
        """The problems that make a file broken (warnings left out)."""
        return tuple(p for p in self.problems if p.severity == "error")

    def confined_problems(self) -> list[SettingsProblem]:
        """A warning for each CONFINED_KEYS value a checked-in file set (merged(confined=True)
        leaves them out)."""
        found: list[SettingsProblem] = []
        for src in self.sources:
            s = src.settings
            if s is None or not src.shared:
                continue
            for attr, label in CONFINED_KEYS.items():
                value = getattr(s, attr)
                if value is None or value == [] or value == {} or value == "":
                    continue
                found.append(
                    SettingsProblem(
                        src.path or src.name,
                        f"{label if src.name.startswith('claude') else attr} ignored: a checked-in project file cannot set it and this "
                        "folder is not trusted",
                        source=src.name,
                        severity="warning",
                    )
                )
            for entries in s.hooks.values():
                listed = entries if isinstance(entries, list) else [entries]
                if any(_without_secret_env(e) != e for e in listed):
                    found.append(
                        SettingsProblem(
                            src.path or src.name,
                            "allowedEnvVars: lathe's credentials are not given to a checked-in "
                            "http hook in a folder that is not trusted",
                            source=src.name,
                            severity="warning",
                        )
                    )
                    break
        return found

    @property
    def broken_sources(self) -> tuple[LoadedSource, ...]:
        return tuple(s for s in self.sources if s.broken)

    def merged(self, trusted: bool = True, confined: bool = False) -> Settings:
        """Scalars: highest source wins. Lists and tables merge. Untrusted project files give
        no hooks, no MCP servers and no environment. `confined` (a headless run in a folder the
        trust records do not name, which keeps the project's hooks and servers): the checked-in
        files still give none of CONFINED_KEYS, so a cloned repository cannot hand lathe's
        credentials on, run its key helper, change what every program finds on PATH, or delete
        the transcripts of the user's other projects."""
        hooks: dict[str, list[dict[str, Any]]] = {}
        servers: dict[str, dict[str, Any]] = {}
        env: dict[str, str] = {}
        passthrough: list[str] = []
        model: str | None = None
        theme: str | None = None
        keymap: dict[str, str] = {}
        progress_panel: str | None = None
        mouse: bool | None = None
        context: dict[str, Any] = {}
        cleanup_days: int | None = None
        api_key_helper: str | None = None
        status_line: dict[str, Any] | None = None
        for src in self.sources:
            s = src.settings
            if s is None:
                continue
            untrusted = not trusted and src.name in PROJECT_SOURCES
            checked_in = confined and src.shared
            if trusted or src.name not in PROJECT_SOURCES:
                for event, entries in s.hooks.items():
                    # Malformed entries are kept as they are: the hooks parser reports them.
                    bucket = hooks.setdefault(str(event), [])
                    listed = entries if isinstance(entries, list) else [entries]
                    bucket.extend(_without_secret_env(e) if checked_in else e for e in listed)
                # Servers start programs and env changes what every program sees: an untrusted
                # project gets neither, like its hooks.
                servers.update(s.mcp.servers)
            if not untrusted and not checked_in:
                env.update(s.env)
                # Handing a credential to the programs lathe starts is a widening: an
                # untrusted project cannot do it, like its env.
                passthrough.extend(n for n in s.passthrough_env if n not in passthrough)
                # Both run a command of the file's choosing: not from an untrusted project.
                api_key_helper = s.api_key_helper or api_key_helper
                status_line = s.status_line or status_line
                # The cleanup deletes every project's transcripts, not only this one's.
                if s.cleanup_period_days is not None:
                    cleanup_days = s.cleanup_period_days
            model = s.model or model
            theme = s.theme or theme
            keymap.update(s.keymap)
            progress_panel = s.progress_panel or progress_panel
            mouse = s.mouse if s.mouse is not None else mouse
            # Each `[context]` key on its own: the highest source that sets it wins.
            context.update(s.context.model_dump(exclude_none=True))
        return Settings.model_validate(
            {
                "hooks": hooks,
                "mcp": {"servers": servers},
                "env": env,
                "passthrough_env": passthrough,
                "model": model,
                "theme": theme,
                "keymap": keymap,
                "progress_panel": progress_panel,
                "mouse": mouse,
                "context": context,
                "cleanup_period_days": cleanup_days,
                "api_key_helper": api_key_helper,
                "status_line": status_line,
            }
        )


def _without_secret_env(entry: Any) -> Any:
    """A checked-in hook entry whose http hooks' `allowedEnvVars` name none of the credentials
    lathe keeps from its children: their headers cannot carry the user's key to the repository's
    URL (the names stay unfilled, as any name the list leaves out)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
        return entry
    handlers = []
    for handler in entry["hooks"]:
        if isinstance(handler, dict) and isinstance(handler.get("allowedEnvVars"), list):
            names = handler["allowedEnvVars"]
            kept = [
                n for n in names if not (isinstance(n, str) and is_secret(n, os.environ.get(n, "")))
            ]
            handler = {**handler, "allowedEnvVars": kept}
        handlers.append(handler)
    return {**entry, "hooks": handlers}


def source_paths(project: Path, env: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    home = home_dir(env)
    # Claude Code's user folder is `$CLAUDE_CONFIG_DIR` when set, `~/.claude` then unread (as
    # for its CLAUDE.md, commands, skills and agents; measured with 2.1.332, ext-r4 F13).
    claude_dir = (env if env is not None else os.environ).get("CLAUDE_CONFIG_DIR", "")
    claude_user = Path(claude_dir).expanduser() if claude_dir else home / ".claude"
    return [
        ("claude-user", claude_user / "settings.json"),
        ("user", config_dir(env) / "settings.toml"),
        ("claude-project", project / ".claude" / "settings.json"),
        ("project", project / ".lathe" / "settings.toml"),
        ("claude-local", project / ".claude" / "settings.local.json"),
        ("local", project / ".lathe" / "settings.local.toml"),
    ]


def load_settings(
    start_dir: str | Path,
    cli: CliOverrides | None = None,
    env: Mapping[str, str] | None = None,
) -> LoadedSettings:
    """Load every source for a session started in `start_dir`."""
    cli = cli or CliOverrides()
    project = project_dir(start_dir)
    sources: list[LoadedSource] = []
    problems: list[SettingsProblem] = []
    files = source_paths(project, env)
    if cli.setting_sources is not None:
        wanted = set(cli.setting_sources)
        files = [(n, p) for n, p in files if n.removeprefix("claude-") in wanted]
    if cli.settings_file:
        files.append(("cli-settings", Path(cli.settings_file).expanduser().resolve()))
    files.append(("policy", policy_file(env)))
    for name, path in files:
        read = read_settings_file(path, name)
        problems.extend(read.problems)
        broken = any(p.severity == "error" for p in read.problems)
        anchor = _anchor_dir(path, project)
        tracked = name in _LOCAL_SOURCES and read.exists and git_tracks(project, path)
        sources.append(
            LoadedSource(
                name, str(path), read.settings, anchor, read.exists, broken, read.text, tracked
            )
        )
    order = {n: i for i, n in enumerate(SOURCE_ORDER)}
    # The command line's own flags sit between a --settings file and the policy.
    sources.append(LoadedSource("cli", None, None, str(project), True))
    sources.sort(key=lambda s: order[s.name])
    # Imported here: the vetting parses rules and hooks, whose modules import this one.
    from app.config.failclosed import vet_sources

    return vet_sources(LoadedSettings(str(project), tuple(sources), tuple(problems), cli))


def _anchor_dir(path: Path, project: Path) -> str:
    """`/x` rules are relative to the folder the settings file configures: for files kept in a
    `.lathe` or `.claude` folder that is the folder holding it (the project, or the home)."""
    parent = path.parent
    if parent.name in (".lathe", ".claude"):
        return str(parent.parent)
    return str(parent)


@dataclass(frozen=True)
class ReadFile:
    settings: Settings | None
    exists: bool
    problems: list[SettingsProblem]
    text: str = ""


def load_settings_file(
    path: Path, source: str
) -> tuple[Settings | None, bool, list[SettingsProblem]]:
    """(settings or None, whether the file exists, problems). Never raises. A broken file gives
    the settings salvaged from it (deny and ask rules only) with its error problems."""
    read = read_settings_file(path, source)
    return read.settings, read.exists, read.problems


def _read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file. A FIFO, a device or a socket in a settings
    file's place would block the read (or never end): opened without blocking and refused, so
    the file counts as one that cannot be read (fail closed)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory")
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, device or socket)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def read_settings_file(path: Path, source: str) -> ReadFile:
    from app.config.failclosed import salvage, salvage_toml_prefix

    try:
        raw = _read_regular(path)
    except (FileNotFoundError, NotADirectoryError):  # `.claude` a file: no settings under it
        dangling = _dangling_link(path)
        if dangling:
            # Someone put a settings file there (a dotfiles link whose target moved): it holds
            # rules nobody can read now, so it is broken, not absent.
            problem = SettingsProblem(str(path), f"cannot read: {dangling}", None, source)
            return ReadFile(None, True, [problem])
        return ReadFile(None, False, [])
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ReadFile(
            None, True, [SettingsProblem(str(path), f"cannot read: {reason}", None, source)]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = raw[exc.start : exc.start + 1].hex()
        problem = SettingsProblem(
            str(path), f"not UTF-8: byte 0x{byte} cannot be decoded", line, source, column=column
        )
        return ReadFile(None, True, [problem])
    is_json = path.suffix == ".json" or (source == "cli-settings" and text.lstrip().startswith("{"))
    problems: list[SettingsProblem] = []
    try:
        data = _parse_json(text, path) if is_json else jsonlimits.toml_loads(text, str(path))
    except jsonlimits.JsonLimitError as exc:
        problem = SettingsProblem(str(path), exc.msg, exc.lineno or None, source)
        # Fail closed as for a syntax error: what the lines that do parse deny still holds.
        kept = None if is_json else salvage_toml_prefix(text, text.count("\n") + 2)
        return ReadFile(kept, True, [problem], text)
    except json.JSONDecodeError as exc:
        problem = SettingsProblem(
            str(path), f"invalid JSON: {exc.msg}", exc.lineno, source, column=exc.colno
        )
        return ReadFile(None, True, [problem], text)
    except DuplicateKeyError as exc:
        msg = f"invalid JSON: {exc} (the later value would silently replace the earlier one)"
        return ReadFile(None, True, [SettingsProblem(str(path), msg, exc.lineno, source)], text)
    except tomllib.TOMLDecodeError as exc:
        at, col, msg = _toml_position(str(exc), text)
        problem = SettingsProblem(str(path), f"invalid TOML: {msg}", at, source, column=col)
        # The lines before the error may still say what to deny.
        return ReadFile(salvage_toml_prefix(text, at), True, [problem], text)
    except ValueError as exc:
        # Python refuses integers of more than 4,300 digits (`sys.get_int_max_str_digits`): a
        # file no settings reader can take, so refused as a syntax error is.
        kind = "JSON" if is_json else "TOML"
        why = "a number of more than 4,300 digits" if "digits" in str(exc) else str(exc)
        problem = SettingsProblem(str(path), f"invalid {kind}: {why}", None, source)
        return ReadFile(None, True, [problem], text)
    if not isinstance(data, dict):
        problem = SettingsProblem(str(path), "settings must be a table (an object)", 1, source)
        return ReadFile(None, True, [problem], text)
    if is_json:
        data = _compat_subset(data)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            problems.append(
                SettingsProblem(
                    str(path),
                    f"{loc}: {err['msg']} (got {_kind(err.get('input'))})",
                    _line_of(text, err["loc"]),
                    source,
                )
            )
        return ReadFile(salvage(data), True, problems, text)
    unknown: list[tuple[tuple[str, ...], str]] = [
        ((key,), key) for key in settings.model_extra or {}
    ]
    unknown += [
        (("permissions", key), f"permissions.{key}")
        for key in settings.permissions.model_extra or {}
    ]
    for where, name in unknown:
        problems.append(
            SettingsProblem(
                str(path),
                f"unknown setting `{name}` (ignored)",
                _line_of(text, where),
                source,
                "warning",
            )
        )
    return ReadFile(settings, True, problems, text)


def _toml_position(message: str, text: str) -> tuple[int | None, int | None, str]:
    """(line, column, message) from tomllib's text, which says "(at line L, column C)" or
    "(at end of document)"."""
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
    if m:
        return int(m.group(1)), int(m.group(2)), message[: m.start()] + message[m.end() :]
    m = re.search(r"\s*\(at end of document\)", message)
    if m:
        lines = text.split("\n")
        rest = message[: m.start()] + message[m.end() :]
        return len(lines), len(lines[-1]) + 1, f"{rest} (at the end of the file)"
    return None, None, message


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value[:60]!r}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"[:80]


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice: the later value would silently drop the earlier one
    (two `permissions` objects lose the first one's deny rules), so the file is refused."""

    def __init__(self, key: str, lineno: int | None) -> None:
        super().__init__(f"duplicate key `{key}`")
        self.key = key
        self.lineno = lineno


def _dangling_link(path: Path) -> str:
    """Why a settings path that cannot be opened is a broken symbolic link (the file itself, or a
    folder on the way to it, like `.lathe -> /moved/away`), or "" when nothing is there."""
    import os

    current = str(path)
    while not os.path.exists(current):
        if os.path.islink(current):
            try:
                target = os.readlink(current)
            except OSError:
                target = "?"
            return f"{current} is a symbolic link to {target}, which does not exist"
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return ""


def _parse_json(text: str, path: Path) -> Any:
    jsonlimits.loads(text, str(path))  # the depth check, before a parser that recurses
    return json.loads(text, object_pairs_hook=lambda pairs: _no_duplicates(pairs, text))


def _no_duplicates(pairs: list[tuple[str, Any]], text: str) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            hits = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
            line = text.count("\n", 0, hits[-1]) + 1 if len(hits) > 1 else None
            raise DuplicateKeyError(key, line)
        seen.add(key)
    return dict(pairs)


def _compat_subset(data: Mapping[str, Any]) -> dict[str, Any]:
    """Claude Code's JSON: keep what lathe reads from it (permissions, hooks, env, model,
    apiKeyHelper, statusLine, cleanupPeriodDays, disableAllHooks); the rest is Claude Code's business."""
    out: dict[str, Any] = {}
    perms = data.get("permissions")
    if isinstance(perms, Mapping):
        out["permissions"] = {k: v for k, v in perms.items() if k in _COMPAT_PERMISSION_KEYS}
    elif perms is not None:
        out["permissions"] = perms  # let validation name the problem
    if "hooks" in data:
        out["hooks"] = data["hooks"]
    env = data.get("env")
    if isinstance(env, Mapping):
        # Claude Code takes `"DEBUG": 1` as "1"; a list or table is still an error.
        out["env"] = {
            k: str(v).lower()
            if isinstance(v, bool)
            else str(v)
            if isinstance(v, int | float)
            else v
            for k, v in env.items()
        }
    elif env is not None:
        out["env"] = env
    for key in ("model", "apiKeyHelper", "statusLine", "cleanupPeriodDays", "disableAllHooks"):
        if key in data:
            out[key] = data[key]
    return out


def _line_of(text: str, loc: Sequence[Any]) -> int | None:
    """Best effort: the line where the innermost named key of `loc` is set."""
    keys = [str(k) for k in loc if isinstance(k, str)]
    lines = text.splitlines()
    for key in reversed(keys):
        pattern = re.compile(rf"^\s*(\[+\s*)?(\"{re.escape(key)}\"|{re.escape(key)})\s*(=|:|\]|\.)")
        for i, line in enumerate(lines, start=1):
            if pattern.search(line) or f'"{key}"' in line:
                return i
    return None


def format_problems(problems: Sequence[SettingsProblem]) -> str:
    return "\n".join(str(p) for p in problems)
