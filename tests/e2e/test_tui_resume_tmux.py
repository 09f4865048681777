"""The real `lathe` in tmux against the HTTP fake: a launch leaves no session behind until the
first prompt, `lathe -r` opens ONE picker listing the past sessions (search, first prompt, time,
branch, count), and the chosen one comes back with its history; a dropped stream shows as one
"failed attempt; retrying" block and the answer once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.scenario import Block, Turn, text_turn
from app.permissions.trust import set_trusted
from app.transcript import project_transcripts_dir
from tests.e2e.test_tui_tmux import READY, lathe_env, send_prompt
from tests.fakeapi.server import FakeAPI
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


def files(repo: Path) -> list[Path]:
    return sorted(project_transcripts_dir(repo).glob("*.jsonl"))


def test_one_picker_past_sessions_only(fake_api: FakeAPI, repo: Path, tmp_path: Path) -> None:
    fake_api.load([text_turn("Looked into the login bug."), text_turn("Back again.")])
    first = Tmux(tmp_path)
    try:
        first.start_lathe(repo, lathe_env(fake_api), [])
        first.wait_for(READY)
        assert files(repo) == []  # nothing typed, nothing saved
        send_prompt(first, "fix the login bug")
        first.wait_for("Looked into the login bug.")
    finally:
        first.kill()
    # A launch that types nothing adds no "(no prompt)" session.
    idle = Tmux(tmp_path)
    try:
        idle.start_lathe(repo, lathe_env(fake_api), [])
        idle.wait_for(READY)
    finally:
        idle.kill()
    assert len(files(repo)) == 1
    picker = Tmux(tmp_path)
    try:
        picker.start_lathe(repo, lathe_env(fake_api), ["-r"])
        # "1 second ago" is singular, and a slow machine may be a minute on: match the pattern.
        age = re.compile(r"\d+ (second|minute)s? ago · main · 2 messages")
        screen = picker.wait_for(lambda s: "fix the login bug" in s and age.search(s) is not None)
        assert "(no prompt)" not in screen
        picker.type("login")
        picker.wait_for("login")
        picker.send("Enter")
        picker.wait_for("Resumed session")
        picker.wait_for("Looked into the login bug.")
        screen = picker.screen()
        assert "Resume a session" not in screen  # one picker: none after the choice
        assert "> fix the login bug" in screen
        send_prompt(picker, "and now?")
        picker.wait_for("Back again.")
        assert "Resume a session" not in picker.screen()
    finally:
        picker.kill()
    assert len(files(repo)) == 1  # the resumed session went on in its own file


def test_dropped_stream_shows_once(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    broken = Turn(blocks=(Block("text", ("Partial words ", "that break", " off")),), drop_after=5)
    fake_api.load([broken, text_turn("The whole answer, once.")])
    tmux.start_lathe(repo, lathe_env(fake_api), [])
    tmux.wait_for(READY)
    send_prompt(tmux, "answer")
    tmux.wait_for("The whole answer, once.")
    screen = tmux.screen()
    assert "failed attempt; retrying" in screen
    assert "Retrying in" in screen and "broke mid-answer" in screen
    assert screen.count("The whole answer, once.") == 1
