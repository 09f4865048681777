"""MCP servers from Claude Code's own state file, `~/.claude.json` (never written).

`claude mcp add --scope user` writes the top-level `mcpServers` (user scope, every project);
`--scope local` (Claude Code's default) writes `projects[<absolute project path>].mcpServers`
(this project, this user only). Both are the user's own choices, so a project's trust does not
gate them. `$CLAUDE_CONFIG_DIR/.claude.json` is read instead when that variable is set, as Claude
Code does. A missing file is no problem; a broken one is a warning (it is Claude Code's state
file, not lathe's settings), and the servers of the other sources still load.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.config.paths import home_dir

USER_LABEL = "user"
LOCAL_LABEL = "local"


def claude_json_path(env: Mapping[str, str] | None = None) -> Path:
    e = os.environ if env is None else env
    folder = e.get("CLAUDE_CONFIG_DIR")
    return Path(folder).expanduser() / ".claude.json" if folder else home_dir(env) / ".claude.json"


def claude_json_servers(
    project_dir: str | Path | None, env: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """(user-scope servers, local-scope servers for `project_dir`, a warning or None)."""
    path = claude_json_path(env)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, {}, f"{path}: cannot read the file: {exc}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return (
            {},
            {},
            f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}); its MCP servers skipped",
        )
    if not isinstance(data, Mapping):
        return {}, {}, f"{path}: not a JSON object; its MCP servers skipped"
    user = data.get("mcpServers")
    user = dict(user) if isinstance(user, Mapping) else {}
    local: dict[str, Any] = {}
    projects = data.get("projects")
    if project_dir is not None and isinstance(projects, Mapping):
        for key in _project_keys(Path(project_dir)):
            entry = projects.get(key)
            if isinstance(entry, Mapping) and isinstance(entry.get("mcpServers"), Mapping):
                local = dict(entry["mcpServers"])
                break
    return user, local, None


def _project_keys(project: Path) -> list[str]:
    keys = [str(project)]
    try:
        real = str(project.resolve())
    except OSError:
        real = str(project)
    if real not in keys:
        keys.append(real)
    return keys
