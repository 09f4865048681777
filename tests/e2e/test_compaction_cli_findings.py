"""`lathe -p` and compaction, the real CLI in a subprocess: odd `[context]` values are broken
settings (exit 2, nothing runs), and Ctrl+C during a summary request is honoured at once."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from app.model.scenario import Turn, text_block, text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import _wait_for, env_for, lathe, spawn


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("window = true", "window"),
        ('window = "30000"', "window"),
        ('auto_compact = "yes"', "auto_compact"),
        ("auto_compact_threshold = true", "auto_compact_threshold"),
        ("reread_files_budget = -1", "reread_files_budget"),
    ],
)
def test_odd_context_values_are_broken_settings(fake_api, repo, line, key):
    path = repo / ".lathe" / "settings.toml"
    path.parent.mkdir()
    path.write_text(f"[context]\n{line}\n")
    fake_api.load([text_turn("should not run")])
    proc = lathe(["-p", "go"], repo, env_for(fake_api))
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:2" in proc.stderr and f"context.{key}" in proc.stderr, proc.stderr
    assert fake_api.bodies() == []


def test_good_context_values_run(fake_api, repo):
    path = repo / ".lathe" / "settings.toml"
    path.parent.mkdir()
    path.write_text("[context]\nwindow = 50000\nauto_compact_threshold = 1\nauto_compact = true\n")
    fake_api.load([text_turn("ran")])
    proc = lathe(["-p", "go"], repo, env_for(fake_api))
    assert proc.returncode == 0 and proc.stdout.strip() == "ran", proc.stderr


def test_sigint_during_a_summary_request_is_prompt(fake_api, repo):
    fake_api.load(
        [
            turn_of([text_block("looking"), tool_use_block("Bash", {"command": "echo hi"})]),
            text_turn("first done"),
        ]
    )
    assert (
        lathe(["-p", "say hi", "--allowedTools", "Bash"], repo, env_for(fake_api)).returncode == 0
    )
    before = len(fake_api.bodies())
    fake_api.load([Turn(blocks=(text_block("<summary>late</summary>"),), delay=8.0)])
    proc = spawn(["-p", "/compact", "--continue"], repo, env_for(fake_api))
    try:
        _wait_for(lambda: len(fake_api.bodies()) > before)
        time.sleep(0.2)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, proc.stderr.read() if proc.stderr else ""
    assert waited < 3.0, waited  # not the 8 s the answer would have taken
    # The conversation is unchanged: --continue still has the first prompt and its answer.
    fake_api.load([text_turn("continued")])
    again = lathe(["-p", "and now?", "--continue"], repo, env_for(fake_api))
    assert again.returncode == 0 and again.stdout.strip() == "continued", again.stderr
    sent_text = str(fake_api.bodies()[-1]["messages"])
    assert "say hi" in sent_text and "first done" in sent_text
