"""Claude Code plugins through the real `lathe -p` and the HTTP fake: a `--plugin-dir` folder and
an installed plugin turned on by `enabledPlugins`, with their skills, commands, agents and hooks."""

from __future__ import annotations

import json
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _plugin(root: Path, name: str = "toolkit") -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": name, "version": "1.0.0", "description": "tools"})
    )
    (root / "commands").mkdir()
    (root / "commands" / "greet.md").write_text("---\ndescription: Greet\n---\nGREET $ARGUMENTS\n")
    (root / "skills" / "lint").mkdir(parents=True)
    (root / "skills" / "lint" / "SKILL.md").write_text(
        "---\ndescription: Lint the code\n---\nLINT-SKILL-BODY\n"
    )
    (root / "agents").mkdir()
    (root / "agents" / "rev.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read\n---\nREVIEWER-PROMPT\n"
    )
    (root / "hooks").mkdir()
    (root / "guard.sh").write_text("#!/bin/sh\necho 'plugin guard says no' >&2\nexit 2\n")
    (root / "guard.sh").chmod(0o755)
    hook = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}
    (root / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    return root


def _script(fake_api) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "toolkit:lint"}, "toolu_s")]),
            turn_of(
                [
                    tool_use_block(
                        "Agent",
                        {"description": "d", "prompt": "P", "subagent_type": "toolkit:reviewer"},
                        "toolu_a",
                    )
                ]
            ),
            text_turn("reviewed"),
            turn_of([tool_use_block("Bash", {"command": "touch ran"}, "toolu_b")]),
            text_turn("done"),
        ]
    )


def _check(fake_api, project: Path) -> None:
    bodies = fake_api.bodies()
    system = "".join(b["text"] for b in bodies[0]["system"])
    assert "- toolkit:lint: Lint the code" in system
    assert "- toolkit:greet: Greet" in system  # its command, offered as a skill
    agent = next(t for t in bodies[0]["tools"] if t["name"] == "Agent")
    assert "- toolkit:reviewer: Reviews code" in agent["description"]
    assert "LINT-SKILL-BODY" in json.dumps(bodies[1]["messages"][-1])
    sub = bodies[2]
    assert "REVIEWER-PROMPT" in "".join(b["text"] for b in sub["system"])
    assert [t["name"] for t in sub["tools"]] == ["Read"]
    assert "plugin guard says no" in json.dumps(_tool_result(fake_api, "toolu_b"))
    assert not (project / "ran").exists()


def test_a_plugin_dir_brings_its_skills_commands_agents_and_hooks(fake_api, project, tmp_path):
    (project / ".git").mkdir()
    root = _plugin(tmp_path / "plug")
    _script(fake_api)
    proc = lathe(
        ["-p", "hi", "--plugin-dir", str(root), "--allowedTools", "Bash(touch:*)"],
        project,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    _check(fake_api, project)


def test_an_installed_plugin_loads_when_enabled_and_its_command_is_typed(
    fake_api, project, tmp_path
):
    (project / ".git").mkdir()
    home = tmp_path / "home"
    install = home / ".claude" / "plugins" / "cache" / "mkt" / "toolkit" / "1.0.0"
    _plugin(install)
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": {"toolkit@mkt": [{"installPath": str(install)}]}})
    )
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"toolkit@mkt": True, "gone@mkt": True}})
    )
    fake_api.load([text_turn("hello back")])
    proc = lathe(["-p", "/toolkit:greet Bob"], project, env_for(fake_api, HOME=str(home)))
    assert proc.returncode == 0, proc.stderr
    assert "GREET Bob" in json.dumps(fake_api.bodies()[0]["messages"])
    assert "gone@mkt is enabled but not installed" in proc.stderr


def test_a_disabled_plugin_is_not_loaded(fake_api, project, tmp_path):
    (project / ".git").mkdir()
    home = tmp_path / "home"
    install = home / ".claude" / "plugins" / "toolkit"
    _plugin(install)
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(
        json.dumps({"plugins": {"toolkit@mkt": {"installPath": str(install)}}})
    )
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"toolkit@mkt": False}})
    )
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api, HOME=str(home)))
    assert proc.returncode == 0, proc.stderr
    assert "toolkit:" not in json.dumps(fake_api.bodies()[0])
