"""Fault injection on the real TUI in tmux: the pane or the whole tmux server is killed, or lathe
gets SIGTERM, while a Bash call and a background shell run. No process lathe started survives,
checked by pid, and the conversation continues validly afterwards."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from tests.e2e.procs import SPAWN_FOUR, descendants, describe, survivors, wait_pids
from tests.e2e.test_headless_cli import _continue_is_valid
from tests.e2e.test_tui_tmux import READY, lathe_env, send_prompt
from tests.tui.tmux_driver import Tmux, have_tmux

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(90),
]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    set_trusted(project, True)
    return project


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    driver = Tmux(tmp_path)
    try:
        yield driver
    finally:
        driver.kill()


@pytest.fixture
def watched() -> Iterator[set[int]]:
    pids: set[int] = set()
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("how", ["kill-pane", "kill-server", "SIGTERM", "terminal-gone-nohup"])
def test_lost_terminal_leaves_no_process(fake_api, repo, tmux, watched, how):
    pid_file = repo / "pids"
    background = f"echo $$ >> {pid_file}; sleep 300 & echo $! >> {pid_file}; wait"
    fake_api.load(
        [
            turn_of(
                [tool_use_block("Bash", {"command": background, "run_in_background": True}, "bg")]
            ),
            turn_of(
                [tool_use_block("Bash", {"command": SPAWN_FOUR.format(pids=pid_file)}, "long")]
            ),
            text_turn("never"),
        ]
    )
    env = lathe_env(fake_api) | {"LATHE_SHUTDOWN_DEADLINE_S": "8"}
    tmux.start_lathe(repo, env, ["--allowedTools", "Bash"], ignore_hup=how == "terminal-gone-nohup")
    tmux.wait_for(READY)
    send_prompt(tmux, "start things")
    pids = wait_pids(pid_file, 6)
    lathe_pid = tmux.pane_pid()
    before = descendants(lathe_pid) | set(pids) | {lathe_pid}
    watched |= before
    if how == "kill-pane":
        tmux.kill_pane()
    elif how == "SIGTERM":
        os.kill(lathe_pid, signal.SIGTERM)
    else:
        tmux.kill()
    left = survivors(before, timeout=15)
    assert not left, f"survived {how}: {describe(left)}"
    assert len(fake_api.requests) == 2  # the model was not asked again
    _continue_is_valid(fake_api, repo)
