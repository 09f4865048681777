"""The real `lathe` in tmux: letters typed while a permission dialog is open are kept for the
prompt (Claude Code drops them), and the dialog's own digit still answers it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_tui_tmux import repo, send_prompt, start, tmux
from tests.fakeapi.server import FakeAPI
from tests.tui.tmux_driver import Tmux, have_tmux

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(60),
]
__all__ = ["repo", "tmux"]  # the fixtures, shared with test_tui_tmux


def test_typed_at_the_dialog_is_kept_for_the_prompt(
    fake_api: FakeAPI, repo: Path, tmux: Tmux
) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "touch typed.txt"}, "b1")]),
            text_turn("MODEL CALLED AFTER DENY"),
        ]
    )
    start(tmux, fake_api, repo)
    send_prompt(tmux, "make a file")
    tmux.wait_for(lambda s: "Permission needed" in s and "touch typed.txt" in s)
    tmux.type("hello world")
    tmux.wait_for("Kept for your prompt: hello world")
    # Keys in the dialog's first half second never answer it, nor a digit within a second of
    # typed letters (part of the sentence: tui-r4 F4), by design.
    time.sleep(1.1)
    tmux.send("3")
    screen = tmux.wait_for(lambda s: "Denied by you" in s and "Permission needed" not in s)
    prompt_rows = [line for line in screen.splitlines() if "hello world" in line]
    assert prompt_rows and all("Kept for" not in row for row in prompt_rows), screen
    assert not (repo / "typed.txt").exists()
    assert len(fake_api.bodies()) == 1  # the deny ended the turn: the model was not called


def test_a_digit_inside_a_typed_sentence_never_answers(
    fake_api: FakeAPI, repo: Path, tmux: Tmux
) -> None:
    """tui-r4 F4, as the attacker typed it: one burst "please do step 1 differently" at the Bash
    dialog, past its key guard. Nothing runs, the `1` is kept with the rest; Claude Code 2.1.332
    keeps its dialog open for the same keys."""
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "touch TYPED_ALLOWED"}, "b1")]),
            text_turn("MODEL CALLED AGAIN"),
        ]
    )
    start(tmux, fake_api, repo)
    send_prompt(tmux, "go")
    tmux.wait_for(lambda s: "Permission needed" in s and "touch TYPED_ALLOWED" in s)
    time.sleep(2.0)  # well past the key guard, as the attacker waited
    tmux.type("please do step 1 differently")
    tmux.wait_for("Kept for your prompt: please do step 1 differently")
    time.sleep(1.1)  # long enough for a wrongly taken `1` to have run the command
    screen = tmux.screen()
    assert "Permission needed" in screen, screen
    assert not (repo / "TYPED_ALLOWED").exists()
    assert len(fake_api.bodies()) == 1
