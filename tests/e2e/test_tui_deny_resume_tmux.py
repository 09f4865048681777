"""The real `lathe` in tmux: a deny in a batch, then `lathe -c`. The resumed history says what the
live screen said ("Denied by you", "not run: you denied Bash(...)", the "Denied" marker), never
"Interrupted by you"; the tool panel is gone once nothing runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from tests.e2e.test_tui_tmux import READY, lathe_env, send_prompt
from tests.fakeapi.server import FakeAPI
from tests.tui.tmux_driver import Tmux, have_tmux

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(90),
]

DENIED = "Denied · tell lathe what to do instead"


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "victim").mkdir()
    set_trusted(project, True)
    return project


def _shows_the_deny(screen: str) -> None:
    assert "Denied by you" in screen, screen
    assert "not run: you denied Bash(rm -rf victim)" in screen, screen
    assert "Interrupted by you" not in screen and "Interrupted ·" not in screen, screen


def test_a_denied_batch_resumes_as_it_was_shown(
    fake_api: FakeAPI, repo: Path, tmp_path: Path
) -> None:
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "echo start"}, "e1"),
                    tool_use_block(
                        "Bash", {"command": "rm -rf victim", "description": "Remove victim"}, "r1"
                    ),
                    tool_use_block("Bash", {"command": "touch sentinel_B"}, "t1"),
                ]
            ),
            text_turn("never asked for"),
        ]
    )
    live = Tmux(tmp_path)
    try:
        live.start_lathe(repo, lathe_env(fake_api), [])
        live.wait_for(READY)
        send_prompt(live, "clean up")
        live.wait_for(lambda s: "Permission needed" in s and "rm -rf victim" in s)
        time.sleep(1.0)  # past the dialog's half-second key guard, with room for a loaded machine
        live.send("3")
        screen = live.wait_for(lambda s: s.count(DENIED) >= 2)  # the marker and the prompt
        _shows_the_deny(screen)
        # The turn is over and nothing runs: no tool panel under the conversation.
        assert "Tools:" not in screen, screen
    finally:
        live.kill()
    assert (repo / "victim").exists() and not (repo / "sentinel_B").exists()
    resumed = Tmux(tmp_path)
    try:
        resumed.start_lathe(repo, lathe_env(fake_api), ["-c"])
        # A loaded machine builds the session slowly: the history comes when it is built.
        screen = resumed.wait_for(lambda s: "rm -rf victim" in s and DENIED in s, timeout=60)
        _shows_the_deny(screen)
        assert "echo start" in screen
    finally:
        resumed.kill()
