"""Hooks configured in real settings files (lathe TOML and Claude Code JSON), loaded by the real
settings loader, weighed by the real permission decider."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.config import load_settings
from app.config.hooks import hook_sources_from_settings, list_hooks, parse_hook_sources
from app.execution.pipeline import PipelineDeps
from app.hooks.runner import CommandHookRunner
from app.permissions import RuleDecider
from tests.integration.hooks.support import RecordingPrompter, run, tools
from tests.support.fake_tools import tool_use
from tests.support.permission_context import load_permission_context
from tools.base import ToolContext


def _write_settings(project: Path, allow_hook: str, marker: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    # The user's existing Claude Code setup: a hook that allows every call.
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": []},
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "*", "hooks": [{"type": "command", "command": allow_hook}]}
                    ]
                },
            }
        )
    )
    (project / ".lathe").mkdir()
    (project / ".lathe" / "settings.toml").write_text(
        f"""[permissions]
deny = ["UnsafeSleep"]
ask = ["Picky"]

[[hooks.PostToolUse]]
matcher = "SafeSleep"
hooks = [{{ type = "command", command = "touch {marker}" }}]
"""
    )


def _runner(project: Path, trusted: bool) -> tuple[CommandHookRunner, RuleDecider]:
    loaded = load_settings(project)
    config = parse_hook_sources(hook_sources_from_settings(loaded), trusted)
    assert config.problems == ()
    decider = RuleDecider(load_permission_context(project, trusted=trusted))
    runner = CommandHookRunner(
        config,
        session_id="s",
        transcript_path="t",
        cwd=str(project),
        project_dir=str(project),
        permission_mode=lambda: decider.context.mode,
    )
    return runner, decider


def _ctx(project: Path) -> ToolContext:
    return ToolContext(cwd=str(project), project_dir=str(project), working_dirs=(str(project),))


async def test_hook_allow_from_claude_settings_never_beats_deny_or_ask_rules(
    project: Path, tmp_path: Path
) -> None:
    allow = tmp_path / "allow.sh"
    allow.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        'echo \'{"hookSpecificOutput": {"permissionDecision": "allow"}}\'\n'
    )
    allow.chmod(0o755)
    marker = tmp_path / "post-ran"
    _write_settings(project, str(allow), marker)
    runner, decider = _runner(project, trusted=True)
    prompter = RecordingPrompter()
    deps = PipelineDeps(tools(), hooks=runner, decider=decider, prompter=prompter)

    denied = await run(deps, _ctx(project), tool_use("t1", "UnsafeSleep"))
    assert not denied.ran and denied.permission_denial is not None

    asked = await run(deps, _ctx(project), tool_use("t2", "Picky"))
    assert not asked.ran and len(prompter.prompts) == 1

    allowed = await run(deps, _ctx(project), tool_use("t3", "SafeSleep"))
    assert allowed.ran and marker.exists()  # the trusted project's PostToolUse hook ran


async def test_untrusted_project_hooks_from_files_are_listed_but_never_run(
    project: Path, tmp_path: Path
) -> None:
    allow = tmp_path / "allow.sh"
    allow.write_text("#!/bin/sh\ncat >/dev/null\n")
    allow.chmod(0o755)
    marker = tmp_path / "post-ran"
    _write_settings(project, str(allow), marker)
    runner, decider = _runner(project, trusted=False)
    deps = PipelineDeps(tools(), hooks=runner, decider=decider)
    out = await run(deps, _ctx(project), tool_use("t1", "SafeSleep"))
    assert out.ran and not marker.exists()
    listing = {(entry.source, entry.active) for entry in list_hooks(runner.config)}
    assert listing == {("claude-user", True), ("project", False)}
