"""Helpers for hook tests: real hook scripts (sh and python) written to tmp files, and a runner wired to a tmp project."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.config.hooks import HookSource, parse_hook_sources
from app.execution.pipeline import PipelineDeps, run_tool_use
from app.hooks.runner import CommandHookRunner
from tests.support.fake_tools import (
    Picky,
    Recorder,
    SafeSleep,
    UnsafeSleep,
)
from tools.base import Tool, ToolContext
from tools.decisions import DecisionReason, PermissionDecision

PY = sys.executable


@dataclass
class HookEnv:
    """A tmp project with a scripts folder, and helpers to configure and run hooks in it."""

    root: Path
    project: Path
    scripts: Path
    mode: list[str] = field(default_factory=lambda: ["default"])

    def sh(self, name: str, body: str) -> str:
        path = self.scripts / f"{name}.sh"
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def py(self, name: str, body: str) -> str:
        path = self.scripts / f"{name}.py"
        path.write_text("import json, os, sys\n" + body)
        return f"{PY} {path}"

    def runner(
        self,
        hooks: Mapping[str, Any],
        *,
        source: str = "user",
        trusted: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> CommandHookRunner:
        config = parse_hook_sources(
            [HookSource(source, str(self.root / "settings.toml"), dict(hooks))], trusted
        )
        assert not [p for p in config.problems if p.severity == "error"], config.problems
        return CommandHookRunner(
            config,
            session_id="sess-1",
            transcript_path=str(self.root / "t.jsonl"),
            cwd=str(self.project),
            project_dir=str(self.project),
            permission_mode=lambda: self.mode[0],
            env=env,
        )

    def context(self, **kw: Any) -> ToolContext:
        return ToolContext(
            cwd=str(self.project),
            project_dir=str(self.project),
            working_dirs=(str(self.project),),
            session_dir=str(self.root / "session"),
            **kw,
        )


def make_env(tmp_path: Path) -> HookEnv:
    project = tmp_path / "project"
    scripts = tmp_path / "scripts"
    project.mkdir()
    scripts.mkdir()
    return HookEnv(tmp_path, project, scripts)


def on(matcher: str, *commands: str, timeout: float | None = None) -> dict[str, Any]:
    """One hook entry in Claude Code's shape."""
    handlers: list[dict[str, Any]] = []
    for c in commands:
        h: dict[str, Any] = {"type": "command", "command": c}
        if timeout is not None:
            h["timeout"] = timeout
        handlers.append(h)
    return {"matcher": matcher, "hooks": handlers}


class FixedDecider:
    def __init__(self, decision: PermissionDecision) -> None:
        self.decision = decision

    async def decide(
        self, tool: Tool[Any], input: Any, observable: Mapping[str, Any], context: ToolContext
    ) -> PermissionDecision:
        return self.decision

    async def decide_as_asking(self, tool, input, observable, context):  # type: ignore[no-untyped-def]
        return await self.decide(tool, input, observable, context)  # no modes: the same verdict


class RecordingPrompter:
    def __init__(self, answer: PermissionDecision | None = None) -> None:
        self.answer = answer
        self.prompts: list[Any] = []

    async def ask(self, prompt: Any) -> None:
        self.prompts.append(prompt)
        prompt.resolver.resolve(
            self.answer or PermissionDecision.deny("user said no", DecisionReason("user", "no"))
        )


ALLOW = PermissionDecision.allow(DecisionReason("rule", "allowed", rule="X", source="user"))
ASK_RULE = PermissionDecision.ask(
    "asks", DecisionReason("rule", "ask rule", rule="X", source="project")
)
ASK_MODE = PermissionDecision.ask("needs permission", DecisionReason("mode", "not read-only"))
DENY_RULE = PermissionDecision.deny(
    "Denied by rule X", DecisionReason("rule", "deny rule", rule="X")
)


class McpEcho(SafeSleep):
    """Stands in for an MCP tool (its output comes from an external server)."""

    name = "mcp__srv__echo"
    is_mcp = True


def tools(recorder: Recorder | None = None) -> list[Tool[Any]]:
    rec = recorder or Recorder()
    return [SafeSleep(rec), UnsafeSleep(rec), Picky(rec), McpEcho(rec)]


async def run(deps: PipelineDeps, ctx: ToolContext, block: dict[str, Any]) -> Any:
    return await run_tool_use(
        block, {"role": "assistant", "content": [block]}, ctx, deps, lambda _: None
    )


def read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        status = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return status != "Z"


Factory = Callable[..., CommandHookRunner]
