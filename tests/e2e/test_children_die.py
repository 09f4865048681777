"""Fault injection: the real `lathe -p` is signalled (SIGTERM, SIGHUP, SIGKILL) while a Bash call,
a background shell, a hook or an MCP server runs. Nothing lathe started may survive it, checked by
pid, and after SIGTERM/SIGHUP the conversation must continue validly (`--continue`)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.procs import SPAWN_FOUR, descendants, describe, survivors, wait_pids
from tests.e2e.test_headless_cli import ROOT, _continue_is_valid, env_for, lines, spawn

pytestmark = pytest.mark.timeout(90)

SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
# What the shell reports for each: 128 + the signal's number, or death by the signal itself.
EXPECTED_CODE = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGKILL: -signal.SIGKILL}


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    return project


@pytest.fixture
def watched() -> Iterator[set[int]]:
    """Pids a test expects to die; whatever survives a failing test is killed afterwards."""
    pids: set[int] = set()
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _run_and_signal(fake_api, repo, sig, pid_file, expected, watched):
    proc = spawn(
        ["-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json"],
        repo,
        env_for(fake_api, LATHE_SHUTDOWN_DEADLINE_S="8"),
    )
    try:
        pids = wait_pids(pid_file, expected)
        before = descendants(proc.pid) | set(pids)
        watched |= before
        assert len(before) > expected  # the reaper at least, besides the recorded ones
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    left = survivors(before)
    assert not left, f"survived {sig.name}: {describe(left)}"
    assert proc.returncode == EXPECTED_CODE[sig], stderr
    # The setsid child kept the Bash pipes open: asyncio used to close them from a destructor
    # after the loop was closed, printing a traceback on the way out.
    assert "Traceback" not in stderr and "Event loop is closed" not in stderr, stderr
    if sig != signal.SIGKILL:
        out = lines(stdout)
        assert out[-1]["type"] == "result" and out[-1]["is_error"] is True
        assert f"Stopped by {sig.name}" in out[-1]["result"]
        # The interrupted call got its synthetic result, on stdout as in the transcript.
        users = [o for o in out if o["type"] == "user"]
        assert users and users[-1]["message"]["content"][0]["tool_use_id"] == "long"
    return stdout


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_signal_during_bash_with_a_background_shell_leaves_no_process(fake_api, repo, sig, watched):
    pid_file = repo / "pids"
    background = f"echo $$ >> {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"
    foreground = SPAWN_FOUR.format(pids=pid_file)
    fake_api.load(
        [
            turn_of(
                [tool_use_block("Bash", {"command": background, "run_in_background": True}, "bg")]
            ),
            turn_of([tool_use_block("Bash", {"command": foreground}, "long")]),
            text_turn("never"),
        ]
    )
    _run_and_signal(fake_api, repo, sig, pid_file, 6, watched)
    assert len(fake_api.requests) == 2  # the model was not asked again after the signal
    _continue_is_valid(fake_api, repo)


def test_background_shell_stops_at_a_normal_exit(fake_api, repo, watched):
    pid_file = repo / "pids"
    background = SPAWN_FOUR.format(pids=pid_file)
    fake_api.load(
        [
            turn_of(
                [tool_use_block("Bash", {"command": background, "run_in_background": True}, "bg")]
            ),
            turn_of(
                [
                    tool_use_block(
                        "Bash",
                        {"command": f"while [ $(wc -l < {pid_file}) -lt 4 ]; do sleep 0.02; done"},
                        "w",
                    )
                ]
            ),
            text_turn("done"),
        ]
    )
    proc = spawn(["-p", "go", "--permission-mode", "bypassPermissions"], repo, env_for(fake_api))
    pids = set(wait_pids(pid_file, 4))
    watched |= pids
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert stdout.strip() == "done"
    left = survivors(pids)
    assert not left, f"survived the exit: {describe(left)}"


@pytest.mark.timeout(150)
def test_sigkill_during_a_hook_and_with_an_mcp_server(fake_api, repo, watched):
    # SIGTERM and SIGHUP stop hooks through the turn's abort and MCP servers through the
    # session's close (the Bash tests above take that path); SIGKILL leaves it to the reaper.
    sig = signal.SIGKILL
    pid_file = repo / "pids"
    hook = f"echo $$ >> {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"
    server = ROOT / "tests" / "integration" / "mcp" / "servers" / "demo_server.py"
    (repo / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"demo": {"command": sys.executable, "args": [str(server), "stdio"]}}}
        )
    )
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}
                    ]
                }
            }
        )
    )
    fake_api.load([turn_of([tool_use_block("Bash", {"command": "true"}, "long")])])
    proc = spawn(
        ["-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json"],
        repo,
        # A loaded machine may take long to start the MCP server; the test is not about that.
        env_for(fake_api, LATHE_SHUTDOWN_DEADLINE_S="8", MCP_TIMEOUT="60000"),
    )
    try:
        pids = wait_pids(pid_file, 2, timeout=60)
        before = descendants(proc.pid) | set(pids)
        watched |= before
        servers = [p for p in before if "demo_server" in describe({p})]
        assert servers, describe(before)
        proc.send_signal(sig)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    left = survivors(before)
    assert not left, f"survived {sig.name}: {describe(left)}"
    assert proc.returncode == EXPECTED_CODE[sig]


def test_a_second_sigterm_forces_the_exit(fake_api, repo, watched):
    # The command ignores SIGTERM (its children inherit that), so a clean stop would wait out the
    # grace period; the second signal kills every group at once and exits with 143.
    pid_file = repo / "pids"
    command = f"trap '' TERM; echo $$ >> {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"
    fake_api.load([turn_of([tool_use_block("Bash", {"command": command}, "long")])])
    proc = spawn(
        ["-p", "go", "--permission-mode", "bypassPermissions"],
        repo,
        env_for(fake_api, LATHE_SHUTDOWN_DEADLINE_S="60"),
    )
    try:
        pids = set(wait_pids(pid_file, 2))
        watched |= pids
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        proc.wait(timeout=30)
        assert time.monotonic() - started < 1.5  # not the 2 s grace period of a clean stop
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143
    left = survivors(pids)
    assert not left, describe(left)
