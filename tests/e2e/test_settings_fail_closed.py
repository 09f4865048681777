"""Settings fail closed, through the real `lathe -p` against the HTTP fake of the API.

Every run is given `--allowedTools Bash` and a model that runs `touch SENTINEL`: had lathe gone on
without the broken file's deny rules, the sentinel would exist. The control test shows it does
when every file is fine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


def _script(fake_api) -> None:
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": "touch SENTINEL"}, "b1")]), text_turn("ok")]
    )


def _run(fake_api, repo: Path, *extra: str):
    _script(fake_api)
    return lathe(["-p", "go", "--allowedTools", "Bash", *extra], repo, env_for(fake_api))


def _user_file() -> Path:
    path = Path(os.environ["LATHE_CONFIG_DIR"]) / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_control_bash_runs_when_files_are_fine(fake_api, repo):
    _user_file().write_text('[permissions]\nallow = ["Read"]\n')
    proc = _run(fake_api, repo)
    assert proc.returncode == 0, proc.stderr
    assert (repo / "SENTINEL").exists()


def _assert_refused(proc, repo: Path, path: Path, line: int, words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:{line}" in proc.stderr, proc.stderr
    assert words in proc.stderr, proc.stderr
    assert not (repo / "SENTINEL").exists()


def test_toml_syntax_error_in_user_settings(fake_api, repo):
    path = _user_file()
    path.write_text('[permissions]\ndeny = ["Bash"]\nallow = ["Read"\n')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, path, 4, "invalid TOML")
    assert f"{path}:4:1" in proc.stderr  # the column, where the parser gives one
    assert fake_api.bodies() == []  # nothing was asked of the model either


def test_wrong_type_in_project_settings(fake_api, repo):
    path = repo / ".lathe" / "settings.toml"
    path.parent.mkdir()
    path.write_text('model = "m"\n[permissions]\ndeny = ["Bash"]\nadditional_directories = 3\n')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, path, 4, "permissions.additional_directories")


def test_non_utf8_byte_in_local_settings(fake_api, repo):
    path = repo / ".lathe" / "settings.local.toml"
    path.parent.mkdir()
    path.write_bytes(b'[permissions]\ndeny = ["Bash"]\n# caf\xe9\n')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, path, 3, "not UTF-8")
    assert f"{path}:3:6" in proc.stderr


def test_deny_written_as_a_string_in_settings_flag_file(fake_api, repo, tmp_path):
    path = tmp_path / "extra.toml"
    path.write_text('[permissions]\ndeny = "Bash"\n')
    proc = _run(fake_api, repo, "--settings", str(path))
    _assert_refused(proc, repo, path, 2, "permissions.deny")
    assert "the string 'Bash'" in proc.stderr


def test_broken_claude_settings_json(fake_api, repo):
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{\n  "permissions": {\n    "deny": ["Bash"],\n  }\n}\n')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, path, 4, "invalid JSON")


def test_broken_claude_user_and_local_json(fake_api, repo):
    home = Path(os.environ["HOME"])
    user = home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text('{"permissions": {"deny": "Bash"}}')
    local = repo / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text('{"permissions": {"allow": [1]}}')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, user, 1, "permissions.deny")
    assert f"{local}:1" in proc.stderr


def test_rule_that_does_not_parse_in_policy(fake_api, repo, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('[permissions]\ndeny = [\n  "Bash(rm:*)",\n  "Bash(:*)",\n]\n')
    _script(fake_api)
    proc = lathe(
        ["-p", "go", "--allowedTools", "Bash"],
        repo,
        env_for(fake_api, LATHE_POLICY_FILE=str(policy)),
    )
    _assert_refused(proc, repo, policy, 4, "a prefix rule needs a command")


def test_malformed_hook_entry_is_an_error(fake_api, repo):
    path = repo / ".lathe" / "settings.toml"
    path.parent.mkdir()
    path.write_text('[hooks]\nPreToolUse = [ { matcher = "Bash", hooks = "./guard.sh" } ]\n')
    proc = _run(fake_api, repo)
    _assert_refused(proc, repo, path, 2, "hooks.PreToolUse[0].hooks")


def test_unknown_key_is_a_warning_and_keeps_the_rules_beside_it(fake_api, repo):
    path = _user_file()
    path.write_text('colour = "red"\n[permissions]\ndeny = ["Bash"]\nalow = ["Read"]\n')
    proc = _run(fake_api, repo)
    assert proc.returncode == 0, proc.stderr
    assert "warning" in proc.stderr and "unknown setting `colour`" in proc.stderr
    assert "unknown setting `permissions.alow`" in proc.stderr and f"{path}:4" in proc.stderr
    # The deny beside the unknown keys still holds.
    assert not (repo / "SENTINEL").exists()


def test_a_file_that_cannot_be_read(fake_api, repo):
    # A folder where the file should be: unreadable even for root, unlike chmod 000.
    path = repo / ".lathe" / "settings.local.toml"
    path.mkdir(parents=True)
    proc = _run(fake_api, repo)
    assert proc.returncode == 2, proc.stderr
    assert f"{path}: cannot read" in proc.stderr
    assert not (repo / "SENTINEL").exists()


def test_a_rule_flag_that_does_not_parse(fake_api, repo):
    proc = _run(fake_api, repo, "--disallowedTools", "Bash(:*)")
    assert proc.returncode == 2, proc.stderr
    assert "--disallowedTools: rule 'Bash(:*)': a prefix rule needs a command" in proc.stderr
    assert proc.stderr.count("Bash(:*)") == 1  # reported once
    assert not (repo / "SENTINEL").exists()
