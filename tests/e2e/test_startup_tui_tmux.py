"""`lathe PROMPT` in tmux (issue 18): the first request leaves before the App exists (Textual
loads on a thread once the request is built), and the screen then shows that turn as if it had
been sent from the input: the prompt, the streamed answer, the status bar, and the next prompt
sent from the input. A folder that asks for trust still asks first. Structural (what was loaded
at the request's connect), never timed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.scenario import text_turn
from app.permissions.trust import set_trusted
from tests.e2e.test_tui_tmux import READY, lathe_env
from tests.fakeapi.server import FakeAPI
from tests.tui.tmux_driver import Tmux, have_tmux
from tests.unit.test_startup_imports import recording_env

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(90),
]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return project


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    driver = Tmux(tmp_path)
    try:
        yield driver
    finally:
        driver.kill()


def _start(tmux: Tmux, fake: FakeAPI, repo: Path, tmp_path: Path, **extra: str) -> Path:
    record = tmp_path / "modules.json"
    env = recording_env(tmp_path, record, lathe_env(fake) | extra)
    tmux.start_lathe(repo, env, ["say hi"])
    return record


def _modules(record: Path) -> set[str]:
    return set(json.loads(record.read_text()))


def test_the_first_request_leaves_before_textual_loads(
    fake_api: FakeAPI, repo: Path, tmux: Tmux, tmp_path: Path
) -> None:
    set_trusted(repo, True)
    fake_api.load([text_turn("Hello there, early bird.")])
    record = _start(tmux, fake_api, repo, tmp_path)
    screen = tmux.wait_for("early bird.", timeout=60)
    assert "> say hi" in screen and "claude-test" in screen
    tmux.wait_for(READY)
    modules = _modules(record)
    assert "app.compose" in modules and "anthropic" in modules  # the hook ran at the request
    # The App takes a session over after its first paint (its status line loads then): at the
    # request's connect it had not.
    assert "app.tui.status_line" not in modules
    assert len(fake_api.requests) == 1
    # The adopted turn ended like any other: the next prompt is sent from the input.
    fake_api.load([text_turn("Second answer.")])
    tmux.type("again")
    tmux.wait_for("again")
    tmux.send("Enter")
    tmux.wait_for("Second answer.", timeout=30)


def test_without_the_early_turn_the_app_builds_the_session_first(
    fake_api: FakeAPI, repo: Path, tmux: Tmux, tmp_path: Path
) -> None:
    # The control: LATHE_TUI_EARLY_TURN=0 starts as before (the session after the first paint).
    set_trusted(repo, True)
    fake_api.load([text_turn("Late answer.")])
    record = _start(tmux, fake_api, repo, tmp_path, LATHE_TUI_EARLY_TURN="0")
    tmux.wait_for("Late answer.", timeout=60)
    assert "app.tui.status_line" in _modules(record)


def test_an_untrusted_folder_asks_before_any_request(
    fake_api: FakeAPI, repo: Path, tmux: Tmux, tmp_path: Path
) -> None:
    fake_api.load([text_turn("After trust.")])
    _start(tmux, fake_api, repo, tmp_path)
    tmux.wait_for("trust", timeout=60)
    assert fake_api.requests == []  # nothing left before the answer
