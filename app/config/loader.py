"""Read every settings source, lowest to highest precedence, and merge them.

A broken file is reported (file, line, problem) and skipped; the other sources still load. The
Claude Code compat files are read for `permissions` and `hooks` only, never written.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from app.config.models import PermissionMode, Settings
from app.config.paths import config_dir, home_dir, policy_file, project_dir

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

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
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


@dataclass(frozen=True)
class CliOverrides:
    """What the command line contributes (CONTRACT.md "Command line")."""

    settings_file: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    permission_mode: PermissionMode | None = None
    add_dirs: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadedSettings:
    project_dir: str
    sources: tuple[LoadedSource, ...]
    problems: tuple[SettingsProblem, ...] = ()
    cli: CliOverrides = field(default_factory=CliOverrides)

    def merged(self, trusted: bool = True) -> Settings:
        """Scalars: highest source wins. Lists and tables merge. Untrusted project files give
        no hooks, no MCP servers and no environment."""
        hooks: dict[str, list[dict[str, Any]]] = {}
        servers: dict[str, dict[str, Any]] = {}
        env: dict[str, str] = {}
        model: str | None = None
        theme: str | None = None
        keymap: dict[str, str] = {}
        progress_panel: str | None = None
        context: dict[str, Any] = {}
        for src in self.sources:
            s = src.settings
            if s is None:
                continue
            if trusted or src.name not in PROJECT_SOURCES:
                for event, entries in s.hooks.items():
                    # Malformed entries are kept as they are: the hooks parser reports them.
                    bucket = hooks.setdefault(str(event), [])
                    if isinstance(entries, list):
                        bucket.extend(entries)
                    else:
                        bucket.append(entries)
                # Servers start programs and env changes what every program sees: an untrusted
                # project gets neither, like its hooks.
                servers.update(s.mcp.servers)
                env.update(s.env)
            model = s.model or model
            theme = s.theme or theme
            keymap.update(s.keymap)
            progress_panel = s.progress_panel or progress_panel
            # Each `[context]` key on its own: the highest source that sets it wins.
            context.update(s.context.model_dump(exclude_none=True))
        return Settings.model_validate(
            {
                "hooks": hooks,
                "mcp": {"servers": servers},
                "env": env,
                "model": model,
                "theme": theme,
                "keymap": keymap,
                "progress_panel": progress_panel,
                "context": context,
            }
        )


def source_paths(project: Path, env: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    home = home_dir(env)
    return [
        ("claude-user", home / ".claude" / "settings.json"),
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
    if cli.settings_file:
        files.append(("cli-settings", Path(cli.settings_file).expanduser().resolve()))
    files.append(("policy", policy_file(env)))
    for name, path in files:
        settings, exists, found = load_settings_file(path, name)
        problems.extend(found)
        sources.append(LoadedSource(name, str(path), settings, _anchor_dir(path, project), exists))
    order = {n: i for i, n in enumerate(SOURCE_ORDER)}
    # The command line's own flags sit between a --settings file and the policy.
    sources.append(LoadedSource("cli", None, None, str(project), True))
    sources.sort(key=lambda s: order[s.name])
    return LoadedSettings(str(project), tuple(sources), tuple(problems), cli)


def _anchor_dir(path: Path, project: Path) -> str:
    """`/x` rules are relative to the folder the settings file configures: for files kept in a
    `.lathe` or `.claude` folder that is the folder holding it (the project, or the home)."""
    parent = path.parent
    if parent.name in (".lathe", ".claude"):
        return str(parent.parent)
    return str(parent)


def load_settings_file(
    path: Path, source: str
) -> tuple[Settings | None, bool, list[SettingsProblem]]:
    """(settings or None, whether the file exists, problems). Never raises."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, False, []
    except (OSError, UnicodeDecodeError) as exc:
        return None, True, [SettingsProblem(str(path), f"cannot read: {exc}", source=source)]
    is_json = path.suffix == ".json" or (source == "cli-settings" and text.lstrip().startswith("{"))
    problems: list[SettingsProblem] = []
    try:
        data = _parse_json(text) if is_json else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        return (
            None,
            True,
            [SettingsProblem(str(path), f"invalid JSON: {exc.msg}", exc.lineno, source)],
        )
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        return (
            None,
            True,
            [
                SettingsProblem(
                    str(path), f"invalid TOML: {msg}", int(m.group(1)) if m else None, source
                )
            ],
        )
    if not isinstance(data, dict):
        return None, True, [SettingsProblem(str(path), "settings must be an object", 1, source)]
    if is_json:
        data = _compat_subset(data)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            problems.append(
                SettingsProblem(
                    str(path), f"{loc}: {err['msg']}", _line_of(text, err["loc"]), source
                )
            )
        return None, True, problems
    for key in settings.model_extra or {}:
        problems.append(
            SettingsProblem(
                str(path),
                f"unknown setting `{key}` (ignored)",
                _line_of(text, (key,)),
                source,
                "warning",
            )
        )
    return settings, True, problems


def _parse_json(text: str) -> Any:
    return json.loads(text)


def _compat_subset(data: Mapping[str, Any]) -> dict[str, Any]:
    """Claude Code's JSON: keep what lathe reads from it (permissions and hooks)."""
    out: dict[str, Any] = {}
    perms = data.get("permissions")
    if isinstance(perms, Mapping):
        out["permissions"] = {k: v for k, v in perms.items() if k in _COMPAT_PERMISSION_KEYS}
    elif perms is not None:
        out["permissions"] = perms  # let validation name the problem
    if "hooks" in data:
        out["hooks"] = data["hooks"]
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
