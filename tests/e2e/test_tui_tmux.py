"""The real `lathe` TUI in tmux (120x40) against the HTTP fake of the API, driven as a user would:
keys typed into the pane, mouse clicks sent as the terminal's SGR sequences, the screen read back."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from tests.fakeapi.server import FakeAPI
from tests.tui.tmux_driver import ROOT, Tmux, have_tmux

pytestmark = [
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed"),
    pytest.mark.timeout(60),
]

READY = "Ask lathe…"


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    for name in ("a", "b", "c"):
        (project / f"{name}.txt").write_text(f"contents of {name}\n")
    set_trusted(project, True)  # no trust dialog: these tests are about the main screen
    return project


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    driver = Tmux(tmp_path)
    try:
        yield driver
    finally:
        driver.kill()


def lathe_env(fake: FakeAPI) -> dict[str, str]:
    keep = ("PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "LANG", "LC_ALL")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        {k: v for k, v in os.environ.items() if k.startswith("LATHE_")},
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake.url,
        ANTHROPIC_MODEL="claude-test",
        LATHE_RETRY_BASE_MS="5",
        PYTHONPATH=str(ROOT),
        TEXTUAL_ANIMATIONS="none",
    )
    return env


def start(tmux: Tmux, fake: FakeAPI, repo: Path, *args: str) -> None:
    tmux.start_lathe(repo, lathe_env(fake), list(args))
    tmux.wait_for(READY)


def send_prompt(tmux: Tmux, text: str) -> None:
    tmux.type(text)
    tmux.wait_for(text)
    tmux.send("Enter")


def row_of(screen: str, text: str) -> int:
    for i, line in enumerate(screen.splitlines()):
        if text in line:
            return i
    raise AssertionError(f"{text!r} is not on the screen:\n{screen}")


def test_prompt_and_streamed_answer(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    answer = "The repository has three small text files and nothing else."
    fake_api.load([text_turn(answer)])  # streamed in 24-character deltas
    start(tmux, fake_api, repo)
    send_prompt(tmux, "what is here?")
    screen = tmux.wait_for(answer)
    assert row_of(screen, "> what is here?") < row_of(screen, answer)
    bodies = fake_api.bodies()
    assert len(bodies) == 1
    assert "what is here?" in str(bodies[0]["messages"][-1]["content"])


def test_concurrent_tools_in_tool_use_order(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    # The Bash call is slow and sits between reads that finish at once: blocks must still follow
    # the tool_use order, not the completion order.
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "r1"),
                    tool_use_block("Read", {"file_path": str(repo / "b.txt")}, "r2"),
                    tool_use_block("Bash", {"command": "sleep 0.3; echo bash-finished"}, "b1"),
                    tool_use_block("Read", {"file_path": str(repo / "c.txt")}, "r3"),
                ]
            ),
            text_turn("All four tools are done."),
        ]
    )
    start(tmux, fake_api, repo, "--allowedTools", "Bash(sleep:*)", "--allowedTools", "Bash(echo:*)")
    send_prompt(tmux, "read them all")
    screen = tmux.wait_for("All four tools are done.")
    rows = [row_of(screen, f"{n}.txt") for n in ("a", "b")]
    rows.append(row_of(screen, "sleep 0.3"))
    rows.append(row_of(screen, "c.txt"))
    assert rows == sorted(rows), screen
    assert "bash-finished" in screen
    results = fake_api.bodies()[1]["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["r1", "r2", "b1", "r3"]
    assert all(not r.get("is_error") for r in results)


def _wait_dialog(tmux: Tmux, command: str) -> None:
    tmux.wait_for(lambda s: "Permission needed" in s and command in s)


def test_permission_dialog_by_key_and_by_click(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "touch by-key.txt"}, "b1")]),
            turn_of([tool_use_block("Bash", {"command": "touch by-click.txt"}, "b2")]),
            text_turn("Both files are made."),
        ]
    )
    start(tmux, fake_api, repo)
    send_prompt(tmux, "make two files")

    _wait_dialog(tmux, "touch by-key.txt")
    # Keys in the dialog's first half second (from its first frame, which a loaded machine
    # may record well after tmux shows it) are kept for the prompt by design.
    time.sleep(1.0)
    tmux.send("1")

    _wait_dialog(tmux, "touch by-click.txt")
    button = tmux.find("1 Allow once")
    assert button is not None, tmux.screen()
    tmux.click(button[0] + 2, button[1])

    tmux.wait_for("Both files are made.")
    assert (repo / "by-key.txt").exists()
    assert (repo / "by-click.txt").exists()
    assert "Permission needed" not in tmux.screen()


def _process_gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is dead, just not yet reaped


def test_ctrl_c_interrupts_a_long_command(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    pid_file = repo / "sleep.pid"
    command = f"sleep 30 & echo $! > {pid_file}; wait"
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": command}, "b1")]),
            text_turn("This answer must never be asked for."),
        ]
    )
    start(tmux, fake_api, repo, "--allowedTools", "Bash")
    send_prompt(tmux, "wait a long time")
    deadline = time.monotonic() + 15
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline, tmux.screen()
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    assert not _process_gone(pid)

    tmux.send("C-c")
    screen = tmux.wait_for("Interrupted")
    deadline = time.monotonic() + 10
    while not _process_gone(pid):
        assert time.monotonic() < deadline, f"the command's process {pid} still runs"
        time.sleep(0.05)
    assert "This answer must never be asked for." not in screen

    fake_api.load([text_turn("Back at your service.")])
    send_prompt(tmux, "are you there?")
    tmux.wait_for("Back at your service.")
    last = fake_api.bodies()[-1]["messages"]
    assert "are you there?" in str(last[-1]["content"])


def test_a_deny_ends_the_turn(fake_api: FakeAPI, repo: Path, tmux: Tmux) -> None:
    # As in Claude Code: Esc at the dialog denies the call, the rest of the batch is not run
    # (each block says why, in plain words), the model is not asked again, and the prompt says
    # what to do next. The user's next words go with Claude Code's rejection texts.
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "touch x", "description": "Make x"}, "b1"),
                    tool_use_block("Bash", {"command": "touch y"}, "b2"),
                    tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "r1"),
                ]
            ),
            text_turn("This answer must never be asked for."),
        ]
    )
    start(tmux, fake_api, repo)
    send_prompt(tmux, "make the files")
    _wait_dialog(tmux, "touch x")
    screen = tmux.screen()
    assert "awaiting approval" in screen and "1 awaiting approval" in screen, screen
    # Keys in the dialog's first half second (from its first frame, which a loaded machine
    # may record well after tmux shows it) are kept for the prompt by design.
    time.sleep(1.0)
    tmux.send("Escape")
    screen = tmux.wait_for(lambda s: s.count("Denied · tell lathe what to do instead") >= 2)
    assert "Denied by you" in screen
    assert screen.count("not run: you denied Bash(touch x)") == 2, screen
    assert "Make x" in screen  # the description, dimmed beside the command
    assert "tool_use_error" not in screen and "doesn't want to proceed" not in screen
    assert "Permission needed" not in screen
    assert not (repo / "x").exists() and not (repo / "y").exists()
    time.sleep(0.3)
    assert len(fake_api.bodies()) == 1  # the model waits for the user
    assert "This answer must never be asked for." not in tmux.screen()

    fake_api.load([text_turn("Doing it differently.")])
    send_prompt(tmux, "do it differently")
    tmux.wait_for("Doing it differently.")
    last = fake_api.bodies()[-1]["messages"][-1]["content"]
    results = [b for b in last if b.get("type") == "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["b1", "b2", "r1"]
    assert all(r["content"].startswith("The user doesn't want to proceed") for r in results)
    assert {"type": "text", "text": "[Request interrupted by user for tool use]"} in last
