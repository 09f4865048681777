"""The look in the real `lathe` (tmux, 120x40, the HTTP fake of the API): the welcome line, the
busy line while a slow stream runs, thinking collapsed until Enter opens it, and a theme chosen
with /theme kept in the user settings across a restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config.ui_settings import user_settings_path
from app.model.scenario import Block, Turn
from app.permissions.trust import set_trusted
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
    set_trusted(project, True)
    return project


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    driver = Tmux(tmp_path)
    try:
        yield driver
    finally:
        driver.kill()


def settled(tmux: Tmux) -> str:
    """The screen once two captures 0.3 s apart agree (the layout has stopped moving)."""
    before = tmux.screen()
    for _ in range(50):
        time.sleep(0.3)
        now = tmux.screen()
        if now == before:
            return now
        before = now
    return before


def test_welcome_busy_thinking_and_a_saved_theme(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    settings = user_settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('# mine\ntheme = "lathe-dark"  # for now\n')
    fake_api.load(
        [
            Turn(
                blocks=(
                    Block("thinking", ("Read the notes, ", "then answer.")),
                    Block("text", tuple("You need milk and bread.")),
                ),
                usage={"input_tokens": 18450, "output_tokens": 312},
                delay=0.1,  # ~3 s of stream: the busy line is seen at work
            )
        ]
    )
    tmux.start_lathe(repo, lathe_env(fake_api), [])
    # "Welcome to lathe" shortens to "lathe" when the folder is long (a pytest-xdist tmp path).
    screen = tmux.wait_for("lathe · claude-test · ")
    assert "· / commands" in screen  # as many keys as the (long) folder leaves room for
    tmux.wait_for(READY)
    send_prompt(tmux, "what is in my notes?")
    busy = tmux.wait_for("↑ 18.4k")
    assert "· Esc to interrupt" in busy and ("Thinking…" in busy or "Writing…" in busy)
    done = tmux.wait_for(lambda s: "You need milk and bread." in s and "Esc to interrupt" not in s)
    assert "∴ Thinking…  1 line · Enter to show" in done
    assert "Read the notes, then answer." not in done
    settled(tmux)  # the busy line's going moves the rows: click where the line is now
    x, y = tmux.find("∴ Thinking…") or (0, 0)
    tmux.click(x, y)
    assert "Read the notes, then answer." in tmux.wait_for("Thinking ▾")
    # A theme chosen on screen is saved, comments kept, and the next start uses it.
    tmux.type("/theme lathe-light")
    tmux.send("Enter")
    tmux.wait_for("Theme set to lathe-light (saved in")
    assert settings.read_text() == '# mine\ntheme = "lathe-light"  # for now\n'
    tmux.send("C-q")
    tmux.wait_for(lambda s: READY not in s, timeout=20)
    tmux.kill()

    again = Tmux(tmux.workdir)
    try:
        again.start_lathe(repo, lathe_env(fake_api), [])
        again.wait_for(READY)
        again.type("/theme")
        again.send("Enter")
        assert "Theme: lathe-light." in again.wait_for("Theme: lathe-")
    finally:
        again.kill()
