"""Claude Code's settings keys as lathe reads them: trust, precedence, the key helper's cache and
limits, the cleanup of old sessions."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from app.config import load_settings
from app.engine.cleanup import cleanup_days, cleanup_old_transcripts
from app.model.key_helper import ApiKeyHelper, KeyHelperError


def _project(tmp_path: Path, settings: dict[str, object]) -> Path:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project


def test_claude_code_json_keys_are_read_and_commands_need_trust(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {
            "model": "claude-opus-4-1",
            "env": {"A": "1", "N": 2, "B": True},
            "apiKeyHelper": "echo key",
            "statusLine": {"type": "command", "command": "echo hi", "padding": 0},
            "cleanupPeriodDays": 9,
            "includeCoAuthoredBy": False,  # Claude Code's own business: no warning
        },
    )
    loaded = load_settings(project, env={"HOME": str(tmp_path / "home")})
    assert not loaded.problems
    trusted = loaded.merged(trusted=True)
    assert trusted.model == "claude-opus-4-1"
    assert trusted.env == {"A": "1", "N": "2", "B": "true"}
    assert trusted.api_key_helper == "echo key"
    assert trusted.status_line == {"type": "command", "command": "echo hi", "padding": 0}
    assert trusted.cleanup_period_days == 9
    untrusted = loaded.merged(trusted=False)
    # A command of the repository's choosing never runs before the folder is trusted.
    assert untrusted.api_key_helper is None and untrusted.status_line is None
    # Nor does its cleanup period, which deletes every project's transcripts (attack r7 N8).
    assert untrusted.env == {} and untrusted.cleanup_period_days is None


def test_a_cleanup_period_below_one_day_is_an_error(tmp_path: Path) -> None:
    project = _project(tmp_path, {"cleanupPeriodDays": 0})
    loaded = load_settings(project, env={"HOME": str(tmp_path / "home")})
    assert any("cleanupPeriodDays" in str(p) for p in loaded.errors)
    assert cleanup_days(None) == 30


def _helper(tmp_path: Path, body: str, **env: str) -> tuple[ApiKeyHelper, Path]:
    counter = tmp_path / "runs"
    script = tmp_path / "helper.sh"
    script.write_text(f'#!/bin/sh\necho x >> "{counter}"\n{body}\n')
    script.chmod(0o755)
    return ApiKeyHelper(str(script), {"PATH": os.environ["PATH"], **env}), counter


def test_key_is_cached_until_the_ttl_and_after_invalidate_runs_again(tmp_path: Path) -> None:
    helper, counter = _helper(tmp_path, "echo '  sk-1  '")
    assert helper.get() == "sk-1" and helper.get() == "sk-1"
    assert len(counter.read_text().splitlines()) == 1
    helper.invalidate()
    helper.get()
    assert len(counter.read_text().splitlines()) == 2
    (tmp_path / "short").mkdir()
    short, _ = _helper(tmp_path / "short", "echo k", CLAUDE_CODE_API_KEY_HELPER_TTL_MS="1")
    short.get()
    time.sleep(0.01)
    short.get()
    assert short.runs == 2


def test_helper_time_limit_and_failures(tmp_path: Path) -> None:
    slow, _ = _helper(tmp_path, "sleep 5; echo k", LATHE_API_KEY_HELPER_TIMEOUT_MS="200")
    started = time.monotonic()
    with pytest.raises(KeyHelperError, match="timed out"):
        slow.get()
    assert time.monotonic() - started < 3
    empty, _ = _helper(tmp_path, "true")
    with pytest.raises(KeyHelperError, match="printed no key"):
        empty.get()


def test_helper_does_not_see_lathes_credentials(tmp_path: Path) -> None:
    helper, _ = _helper(tmp_path, 'echo "got:${ANTHROPIC_AUTH_TOKEN:-none}"')
    helper.env["ANTHROPIC_AUTH_TOKEN"] = "secret"
    assert helper.get() == "got:none"


def test_cleanup_keeps_recent_and_the_current_session(tmp_path: Path) -> None:
    state = tmp_path / "state"
    files = {
        name: state / "projects" / "proj" / f"{name}.jsonl" for name in ("old", "new", "current")
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    old = time.time() - 40 * 86_400
    for name in ("old", "current"):
        os.utime(files[name], (old, old))
    removed = cleanup_old_transcripts(state, 30, "current")
    assert removed == [files["old"]]
    assert files["new"].exists() and files["current"].exists()
    assert cleanup_old_transcripts(state, 30, "current") == []
