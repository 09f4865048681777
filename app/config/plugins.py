"""Claude Code plugins: folders with an optional `.claude-plugin/plugin.json`, as Claude Code
lays them out.

A plugin comes from `--plugin-dir PATH` (the Agent SDK's flag, repeatable) or is installed under
`~/.claude/plugins` (`$CLAUDE_CONFIG_DIR/plugins`): `installed_plugins.json` maps an id
(`name@marketplace`) to its `installPath` (version 2: a list of installs, the first wins), and
the `enabledPlugins` settings key (`{"name@marketplace": true}`) turns it on. Only user and local
settings enable plugins, and the project's when its hooks would run (a plugin runs hooks). A
plugin's name is its manifest's `name`, else its folder's. What it holds, each named
`PLUGIN:NAME` as in Claude Code: `commands/**/*.md`, `skills/*/SKILL.md`, `agents/**/*.md` (and
the files or folders the manifest's `commands`, `skills` and `agents` name), and
`hooks/hooks.json` plus the manifest's `hooks` (a table, a path, or a list of them) -- in a
hook command `${CLAUDE_PLUGIN_ROOT}` is the plugin's folder, and the hook runs with
`CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` (`~/.claude/plugins/data/ID`, ID being
`name@marketplace`, `name@inline` for `--plugin-dir`, with every other character than letters,
digits, `-` and `_` made `-`, as Claude Code 2.1.332 names it) in its environment. Loaded by
app/commands, app/skills, app/agents and the hooks config like their own folders. MCP servers
(`.mcp.json`, the manifest's `mcpServers`) are app/mcp/plugin_servers.py's. Not read: LSP
servers (lathe has no LSP tool), output styles.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app import jsonlimits
from app.config.hooks import HookSource

MANIFEST = Path(".claude-plugin") / "plugin.json"


@dataclass(frozen=True)
class Plugin:
    name: str
    root: Path
    source: str  # "user" (installed) or "cli" (--plugin-dir)
    data: Path | None = None  # its CLAUDE_PLUGIN_DATA folder (made when a hook or server runs)
    # The manifest's own `commands`, `skills` and `agents` paths (files or folders inside the
    # plugin), read besides its `commands/`, `skills/` and `agents/` folders (component_paths).
    command_paths: tuple[Path, ...] = ()
    skill_paths: tuple[Path, ...] = ()
    agent_paths: tuple[Path, ...] = ()

    def env(self) -> dict[str, str]:
        """What a plugin's hooks and servers get in their environment."""
        out = {"CLAUDE_PLUGIN_ROOT": os.fspath(self.root)}
        if self.data is not None:
            out["CLAUDE_PLUGIN_DATA"] = os.fspath(self.data)
        return out


def data_dir(claude_dir: Path, plugin_id: str) -> Path:
    """Claude Code's per-plugin data folder, `plugins/data/<id, sanitized>`."""
    return claude_dir / "plugins" / "data" / re.sub(r"[^a-zA-Z0-9\-_]", "-", plugin_id)


def ensure_data(plugin: Plugin) -> None:
    """Claude Code makes the folder before it hands it over; a failure leaves it absent."""
    if plugin.data is not None:
        try:
            plugin.data.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            pass


def _read_json(path: Path) -> Any:
    try:
        return jsonlimits.loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, ValueError):
        return None


def read_plugin(root: Path, source: str, problems: list[str]) -> Plugin | None:
    manifest = root / MANIFEST
    if not root.is_dir():
        problems.append(f"plugin folder {root} skipped: not a folder")
        return None
    if not manifest.exists():
        # The manifest is optional: Claude Code 2.1.332 loads the folder under its own name
        # (measured, ext-r3 F8: Anthropic's plugin-dev has none in its repository).
        if ":" in root.name:
            problems.append(f"plugin folder {root} skipped: {root.name!r} is not a plugin name")
            return None
        return Plugin(root.name, root, source)
    data = _read_json(manifest)
    if not isinstance(data, Mapping):
        problems.append(f"plugin {manifest} skipped: not a JSON object")
        return None
    name = data.get("name")
    name = name.strip() if isinstance(name, str) and name.strip() else root.name
    if ":" in name or "/" in name:
        problems.append(f"plugin {manifest} skipped: {name!r} is not a plugin name")
        return None
    return Plugin(
        name,
        root,
        source,
        command_paths=component_paths(root, data.get("commands"), "commands", problems),
        skill_paths=component_paths(root, data.get("skills"), "skills", problems),
        agent_paths=component_paths(root, data.get("agents"), "agents", problems),
    )


def component_paths(root: Path, value: Any, key: str, problems: list[str]) -> tuple[Path, ...]:
    """A manifest's `commands` / `skills` / `agents`: a path or a list of paths relative to the
    plugin (`"./cmds/hello.md"`, `"./myskills/"`; VoltAgent's marketplace lists its agent
    files so), read as Claude Code 2.1.332 reads them (measured, ext-r4 F4). A path that leaves
    the plugin's folder, or is no string, is skipped with a warning."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    out: list[Path] = []
    real_root = os.path.realpath(root)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            problems.append(f"plugin {root / MANIFEST}: `{key}` entry {item!r} is not a path")
            continue
        path = root / item.strip()
        real = os.path.realpath(path)
        if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
            problems.append(
                f"plugin {root / MANIFEST}: `{key}` entry {item!r} is outside the plugin: skipped"
            )
            continue
        if not path.exists():
            problems.append(f"plugin {root / MANIFEST}: `{key}` entry {item!r} does not exist")
            continue
        out.append(path)
    return tuple(out)


def _installed(plugins_dir: Path) -> dict[str, Path]:
    data = _read_json(plugins_dir / "installed_plugins.json")
    entries = data.get("plugins") if isinstance(data, Mapping) else None
    out: dict[str, Path] = {}
    if not isinstance(entries, Mapping):
        return out
    for plugin_id, value in entries.items():
        install = value[0] if isinstance(value, list) and value else value
        path = install.get("installPath") if isinstance(install, Mapping) else None
        if isinstance(plugin_id, str) and isinstance(path, str) and path:
            out[plugin_id] = Path(path).expanduser()
    return out


def enabled_ids(settings_files: Iterable[Path]) -> list[str]:
    """The plugin ids `enabledPlugins` turns on, later files overriding earlier ones."""
    state: dict[str, bool] = {}
    for path in settings_files:
        data = _read_json(path) if path.is_file() else None
        enabled = data.get("enabledPlugins") if isinstance(data, Mapping) else None
        if isinstance(enabled, Mapping):
            state.update({k: v is True for k, v in enabled.items() if isinstance(k, str)})
    return [k for k, on in state.items() if on]


def load_plugins(
    claude_dir: Path,
    settings_files: Iterable[Path],
    plugin_dirs: Iterable[str] = (),
) -> tuple[list[Plugin], list[str]]:
    """The session's plugins (installed and enabled, then `--plugin-dir` ones) and problems."""
    problems: list[str] = []
    found: list[Plugin] = []
    installed = _installed(claude_dir / "plugins")
    for plugin_id in enabled_ids(settings_files):
        root = installed.get(plugin_id)
        if root is None:
            problems.append(f"plugin {plugin_id} is enabled but not installed; skipped")
            continue
        plugin = read_plugin(root, "user", problems)
        if plugin is not None:
            found.append(replace(plugin, data=data_dir(claude_dir, plugin_id)))
    for folder in plugin_dirs:
        plugin = read_plugin(Path(folder).expanduser().resolve(), "cli", problems)
        if plugin is not None:
            found.append(replace(plugin, data=data_dir(claude_dir, f"{plugin.name}@inline")))
    return found, problems


def with_plugin_root(value: Any, root: str) -> Any:
    """`${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) in every string of `value`."""
    if isinstance(value, str):
        return value.replace("${CLAUDE_PLUGIN_ROOT}", root).replace("$CLAUDE_PLUGIN_ROOT", root)
    if isinstance(value, list):
        return [with_plugin_root(v, root) for v in value]
    if isinstance(value, Mapping):
        return {k: with_plugin_root(v, root) for k, v in value.items()}
    return value


def _hook_tables(plugin: Plugin, problems: list[str]) -> list[tuple[str, Any]]:
    """`hooks/hooks.json`, then the manifest's `hooks`: a table, a path (relative to the plugin)
    or a list of either. A path naming `hooks/hooks.json` again is not read twice."""
    default = plugin.root / "hooks" / "hooks.json"
    out: list[tuple[str, Any]] = []
    if default.is_file():
        data = _read_json(default)
        if isinstance(data, Mapping):
            out.append((str(default), data.get("hooks")))
        else:
            problems.append(f"plugin hooks {default} skipped: not a JSON object")
    manifest = plugin.root / MANIFEST
    data = _read_json(manifest)
    declared = data.get("hooks") if isinstance(data, Mapping) else None
    items = declared if isinstance(declared, list) else [declared] if declared else []
    for item in items:
        if isinstance(item, Mapping):
            out.append((f"{manifest} hooks", item.get("hooks", item)))
            continue
        if not isinstance(item, str):
            problems.append(f"plugin {manifest}: `hooks` entry {item!r} is not a path or table")
            continue
        path = (plugin.root / item).resolve()
        if path == default.resolve():
            continue
        table = _read_json(path) if path.is_file() else None
        if not isinstance(table, Mapping):
            problems.append(f"plugin {manifest}: hooks file {item} is missing or not JSON")
            continue
        out.append((str(path), table.get("hooks", table)))
    return out


def plugin_hook_sources(
    plugins: Iterable[Plugin], problems: list[str] | None = None
) -> list[HookSource]:
    out: list[HookSource] = []
    found: list[str] = [] if problems is None else problems
    for plugin in plugins:
        env = tuple(plugin.env().items())
        for path, hooks in _hook_tables(plugin, found):
            if isinstance(hooks, Mapping):
                ensure_data(plugin)
                table = with_plugin_root(hooks, os.fspath(plugin.root))
                out.append(HookSource("plugin", path, table, env))
    return out
