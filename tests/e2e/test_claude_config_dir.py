"""`$CLAUDE_CONFIG_DIR` holds the user's Claude Code settings.json, as Claude Code 2.1.332 reads it
(ext-r4 F13), through the real `lathe -p`, the HTTP fake and a real Bash call: its deny rules
hold, and ~/.claude/settings.json is not read while the variable is set."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _touch_run(fake_api, project: Path, cfg: Path, name: str) -> dict:
    (project / ".git").mkdir(exist_ok=True)
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": f"touch {name}"}, "toolu_t")]),
            text_turn("done"),
        ]
    )
    env = env_for(fake_api, CLAUDE_CONFIG_DIR=str(cfg))
    cmd = ["-p", "go", "--output-format", "json", "--allowedTools", "Bash(touch:*)"]
    proc = lathe(cmd, project, env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_deny_rule_in_claude_config_dir_holds(fake_api, project, tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(touch:*)"]}}))
    out = _touch_run(fake_api, project, cfg, "denied-by-cfg.txt")
    assert not (project / "denied-by-cfg.txt").exists()
    assert [d["tool_name"] for d in out["permission_denials"]] == ["Bash"]
    assert "denied" in json.dumps(_tool_result(fake_api, "toolu_t")["content"])


def test_home_claude_settings_are_not_read_when_the_variable_is_set(fake_api, project, tmp_path):
    home_settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    home_settings.parent.mkdir(parents=True, exist_ok=True)
    home_settings.write_text(json.dumps({"permissions": {"deny": ["Bash(touch:*)"]}}))
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    out = _touch_run(fake_api, project, cfg, "made.txt")
    # Claude Code reads $CLAUDE_CONFIG_DIR/settings.json instead, so the rule is not in force.
    assert (project / "made.txt").exists()
    assert out["permission_denials"] == []
