"""Small real tools (the Tool contract, named as lathe's tools) and a way to decide one call."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.config.loader import CliOverrides
from app.permissions import PermissionContext, RuleDecider
from tests.support.permission_context import load_permission_context
from tools.base import Tool, ToolContext
from tools.decisions import PermissionDecision
from tools.registry import base_tool_classes
from tools.shell import is_read_only_command

# The permission declarations of lathe's real tools, by name: a DictTool named like one is
# judged as that tool is.
_REAL = {cls.name: cls for cls in base_tool_classes()}
_READ_ONLY = {"Read", "Glob", "Grep", "WebFetch", "TodoWrite"}


class DictTool(Tool[dict[str, Any]]):
    """A tool whose input is a plain dict; declarations follow lathe's real tools."""

    def __init__(
        self, name: str, own: PermissionDecision | None = None, read_only: bool | None = None
    ) -> None:
        self.name = name
        real = _REAL.get(name)
        if real is not None:
            self.permission_kind = real.permission_kind
            self.subject_field = real.subject_field
            self.path_reach = real.path_reach
        self._own = own
        self._read_only = read_only

    def is_read_only(self, input: dict[str, Any]) -> bool:
        if self._read_only is not None:
            return self._read_only
        if self.name == "Bash":
            return is_read_only_command(str(input.get("command", "")))
        return self.name in _READ_ONLY

    async def check_permissions(
        self, input: dict[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return self._own or PermissionDecision.passthrough()

    def permission_subject(self, input: dict[str, Any]) -> str | None:
        field = self.subject_field
        value = input.get(field) if field else None
        return value if isinstance(value, str) else None


def make_env(tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return {
        "HOME": str(home),
        "LATHE_CONFIG_DIR": str(tmp / "config"),
        "LATHE_STATE_DIR": str(tmp / "state"),
        "LATHE_POLICY_FILE": str(tmp / "policy.toml"),
    }


def make_project(tmp: Path) -> Path:
    project = tmp / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "main.py").write_text("print(1)\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "README.md").write_text("hi\n")
    return project


def context(
    tmp: Path,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    mode: str | None = None,
    ask: tuple[str, ...] = (),
    add_dirs: tuple[str, ...] = (),
) -> PermissionContext:
    project = make_project(tmp)
    env = make_env(tmp)
    if ask:
        settings = tmp / "cli-settings.toml"
        body = ", ".join(f"'''{a}'''" for a in ask)
        settings.write_text(f"[permissions]\nask = [{body}]\n")
    cli = CliOverrides(
        settings_file=str(tmp / "cli-settings.toml") if ask else None,
        allowed_tools=allow,
        disallowed_tools=deny,
        permission_mode=mode,  # type: ignore[arg-type]
        add_dirs=add_dirs,
    )
    return load_permission_context(project, cli=cli, env=env, trusted=True)


def decide(
    pc: PermissionContext,
    tool: str | Tool[Any],
    input: Mapping[str, Any],
    cwd: str | None = None,
) -> PermissionDecision:
    t = DictTool(tool) if isinstance(tool, str) else tool
    ctx = ToolContext(
        cwd=cwd or pc.project_dir, project_dir=pc.project_dir, working_dirs=(pc.project_dir,)
    )
    obs = dict(input)
    for key in ("file_path", "path"):
        value = obs.get(key)
        if isinstance(value, str) and not value.startswith("\\\\"):
            if value == "~" or value.startswith("~/"):
                value = pc.home + value[1:]
            obs[key] = ctx.resolve_path(value)
    return asyncio.run(RuleDecider(pc).decide(t, dict(input), obs, ctx))


def bash(pc: PermissionContext, command: str, cwd: str | None = None) -> PermissionDecision:
    return decide(pc, "Bash", {"command": command}, cwd)


def home_of(pc: PermissionContext) -> str:
    return pc.home or os.environ.get("HOME", "/")
