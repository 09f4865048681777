"""Settings sources on real files: precedence, compat JSON, broken files, trust, always-allow."""

from __future__ import annotations

import json
from pathlib import Path

from app.config import CliOverrides, load_settings
from app.permissions import (
    allow_for_session,
    always_allow,
    is_trusted,
    set_trusted,
)
from tests.support.permission_context import load_permission_context
from tests.unit.permissions.helpers import bash, make_env, make_project


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_all_sources_merge_with_provenance(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = make_env(tmp_path)
    _write(
        Path(env["LATHE_CONFIG_DIR"]) / "settings.toml",
        '[permissions]\nallow = ["Bash(make:*)"]\ndefault_mode = "acceptEdits"\n',
    )
    _write(
        Path(env["HOME"]) / ".claude" / "settings.json",
        json.dumps({"permissions": {"allow": ["Bash(cargo build)"]}, "statusLine": {}}),
    )
    _write(project / ".lathe" / "settings.toml", '[permissions]\ndeny = ["Bash(make clean)"]\n')
    _write(
        project / ".claude" / "settings.json",
        json.dumps({"permissions": {"ask": ["Bash(make install)"], "defaultMode": "plan"}}),
    )
    _write(
        project / ".claude" / "settings.local.json",
        json.dumps({"permissions": {"allow": ["Bash(tox)"]}}),
    )
    _write(Path(env["LATHE_POLICY_FILE"]), '[permissions]\ndeny = ["WebFetch"]\n')
    sub = project / "src"
    pc = load_permission_context(
        sub, CliOverrides(allowed_tools=("Bash(uv run:*)",)), env, trusted=True
    )
    assert pc.project_dir == str(project)
    sources = {r.text: r.source for r in pc.rules()}
    assert sources == {
        "Bash(make:*)": "user",
        "Bash(cargo build)": "claude-user",
        "Bash(make clean)": "project",
        "Bash(make install)": "claude-project",
        "Bash(tox)": "claude-local",
        "Bash(uv run:*)": "cli",
        "WebFetch": "policy",
    }
    assert pc.mode == "plan"  # project compat beats user (higher precedence scalar)
    assert bash(pc, "make clean").behavior == "deny"
    assert bash(pc, "make install").behavior == "ask"
    assert pc.blanket_denied("WebFetch")


def test_broken_file_named_with_line_and_others_load(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = make_env(tmp_path)
    _write(project / ".lathe" / "settings.toml", '[permissions]\nallow = ["Bash(ls:*)"\n')
    _write(project / ".claude" / "settings.json", '{\n  "permissions": {\n    "allow": [1,]\n}')
    _write(
        Path(env["LATHE_CONFIG_DIR"]) / "settings.toml", '[permissions]\nallow = ["Bash(make:*)"]\n'
    )
    _write(project / ".lathe" / "settings.local.toml", '[permissions]\nallow = "Bash(x)"\n')
    loaded = load_settings(project, env=env)
    text = "\n".join(str(p) for p in loaded.problems)
    assert f"{project}/.lathe/settings.toml:" in text and "invalid TOML" in text
    assert f"{project}/.claude/settings.json:3:17: invalid JSON" in text
    assert f"{project}/.lathe/settings.local.toml:2: permissions.allow" in text
    pc = load_permission_context(project, env=env, trusted=True)
    assert [r.text for r in pc.allow] == ["Bash(make:*)"]


def test_untrusted_project_ignores_allow_but_keeps_deny(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = make_env(tmp_path)
    _write(
        project / ".lathe" / "settings.toml",
        '[permissions]\nallow = ["Bash(curl:*)"]\ndeny = ["Bash(rm:*)"]\n'
        'default_mode = "bypassPermissions"\n[hooks]\n'
        'PreToolUse = [{matcher = "*", hooks = [{command = "x"}]}]\n',
    )
    assert not is_trusted(project, env)
    pc = load_permission_context(project, env=env)
    assert not pc.trusted and pc.mode == "default"
    assert [r.text for r in pc.allow] == [] and [r.text for r in pc.deny] == ["Bash(rm:*)"]
    assert load_settings(project, env=env).merged(trusted=False).hooks == {}
    set_trusted(project, env=env)
    assert is_trusted(project / "src", env)
    pc = load_permission_context(project, env=env)
    assert pc.trusted and [r.text for r in pc.allow] == ["Bash(curl:*)"]
    assert pc.mode == "bypassPermissions"
    assert (Path(env["LATHE_STATE_DIR"]) / "trust.json").exists()


def test_env_and_xdg_defaults(tmp_path: Path) -> None:
    from app.config import config_dir, policy_file, state_dir

    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "c"),
        "XDG_STATE_HOME": str(tmp_path / "s"),
    }
    assert config_dir(env) == tmp_path / "c" / "lathe"
    assert state_dir(env) == tmp_path / "s" / "lathe"
    assert state_dir({"HOME": str(tmp_path)}) == tmp_path / ".local" / "state" / "lathe"
    assert str(policy_file({})) == "/etc/lathe/settings.toml"


def test_always_allow_preserves_comments_and_applies_at_once(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = make_env(tmp_path)
    local = project / ".lathe" / "settings.local.toml"
    _write(
        local,
        '# my notes\ntheme = "nord"  # keep\n\n[permissions]\n# rules\nallow = ["Bash(ls:*)"]\n',
    )
    pc = load_permission_context(project, env=env, trusted=True)
    assert bash(pc, "npm run test").behavior == "ask"
    new = always_allow(pc, ["Bash(npm run test:*)"])
    assert bash(new, "npm run test -- -x").behavior == "allow"
    assert bash(pc, "npm run test").behavior == "ask"  # the old snapshot is unchanged
    text = local.read_text()
    assert text.startswith('# my notes\ntheme = "nord"  # keep\n\n[permissions]\n# rules\n')
    assert "Bash(npm run test:*)" in text
    again = load_permission_context(project, env=env, trusted=True)
    assert bash(again, "npm run test").behavior == "allow"
    session = allow_for_session(pc, ["Bash(make:*)"])
    assert bash(session, "make all").behavior == "allow"
    assert "make" not in local.read_text()


def test_symlinked_settings_anchor_and_add_dir(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    env = make_env(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.txt").write_text("x")
    _write(project / ".lathe" / "settings.toml", '[permissions]\ndeny = ["Read(/src/main.py)"]\n')
    pc = load_permission_context(project, CliOverrides(add_dirs=(str(other),)), env, trusted=True)
    assert bash(pc, "cat src/main.py").behavior == "deny"
    assert bash(pc, f"cat {other}/a.txt").behavior == "allow"
