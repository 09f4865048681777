"""Fault injection on the real `lathe -p` against the HTTP fake of the API (which enforces the
API's rules and records every request): kill -9 at random moments of real sessions, two
concurrent continues, kill -9 in the middle of an atomic write.

`LATHE_FAULT_KILLS` sets how many kills the random-kill test makes (default 3).
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import Turn, text_turn, tool_use_block, turn_of
from app.transcript import find_latest
from tests.e2e.test_headless_cli import env_for, lathe, spawn

KILLS = int(os.environ.get("LATHE_FAULT_KILLS", "3"))
BYPASS = ["--permission-mode", "bypassPermissions"]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "big.txt").write_text("".join(f"row {i} {'y' * 70}\n" for i in range(4000)))
    return project


def _wait_for(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.005)
    raise AssertionError("condition not met in time")


def _turns(k: int) -> list[Turn]:
    """A real piece of work: a command with a large (persisted) output and a large Read."""
    return [
        turn_of(
            [
                tool_use_block("Bash", {"command": "seq 1 120000; sleep 0.2"}, f"bash{k}"),
                tool_use_block("Read", {"file_path": "big.txt"}, f"read{k}"),
            ]
        ),
        text_turn(f"done {k}", delay=0.002),
    ]


def _names(pwd_file: Path, repo: Path) -> bool:
    try:
        return pwd_file.read_text().startswith(str(repo))
    except OSError:
        return False


def _bad_requests(fake) -> list[Any]:
    return [(r.status, r.body if r.status == 400 else "") for r in fake.requests if r.status != 200]


def _messages_text(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def test_kill_9_at_random_moments_then_two_continues(fake_api, repo):
    rng = random.Random(int(os.environ.get("LATHE_FAULT_SEED", "7")))
    env = env_for(fake_api)
    on_disk: list[str] = []  # prompts whose line was whole on disk after their run
    lost: list[str] = []
    torn = 0  # kills that left a line cut short
    fake_api.load([text_turn("started")])
    assert lathe(["-p", "START"], repo, env).returncode == 0
    on_disk.append("START")
    for k in range(KILLS):
        prompt = f"KILLED-{k}"
        fake_api.load(_turns(k))
        asked = len(fake_api.requests)
        proc = spawn(["-p", prompt, "--continue", *BYPASS], repo, env)
        # From its first request on (the prompt is on disk): streaming, running the tools,
        # writing their large results, the second request, the answer.
        _wait_for(lambda: len(fake_api.requests) > asked or proc.poll() is not None)  # noqa: B023
        time.sleep(rng.uniform(0.0, 1.5))
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        path = find_latest(repo)
        assert path is not None
        raw = path.read_bytes()
        if raw.endswith(b"\n") and k % 2:
            # A kill rarely lands inside a write(2) of one line (a full disk does, every time):
            # every other run also loses the end of its last line, as that would.
            start = raw.rfind(b"\n", 0, len(raw) - 1) + 1
            raw = raw[: rng.randrange(start + 1, len(raw))]
            path.write_bytes(raw)
        torn += not raw.endswith(b"\n")
        if prompt.encode() in raw[: raw.rfind(b"\n") + 1]:
            on_disk.append(prompt)
        for tag in ("a", "b"):
            fake_api.load([text_turn(f"cont {k}{tag}")])
            done = lathe(["-p", f"CONT-{k}{tag}", "--continue"], repo, env)
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip() == f"cont {k}{tag}"
            on_disk.append(f"CONT-{k}{tag}")
        assert _bad_requests(fake_api) == []
        seen = _messages_text(fake_api.bodies()[-1])
        lost.extend(p for p in on_disk if p not in seen and p not in lost)
    print(f"\nkills={KILLS} torn_lines={torn} prompts_on_disk={len(on_disk)} lost={len(lost)}")
    assert lost == [], f"{len(lost)} prompts lost after {KILLS} kills"
    # Nothing is left in /tmp by Bash's working-folder tracking (other runs on this machine may
    # leave theirs: only ours, which name this repository, count).
    assert not [p for p in Path("/tmp").glob("lathe-pwd-*") if _names(p, repo)]


def test_a_second_continue_on_a_session_in_use_exits_2(fake_api, repo):
    env = env_for(fake_api)
    fake_api.load([text_turn("first")])
    assert lathe(["-p", "FIRST"], repo, env).returncode == 0
    path = find_latest(repo)
    assert path is not None
    session_id = path.stem
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Bash",
                        {"command": "touch holding; until [ -e release ]; do sleep 0.05; done"},
                        "hold",
                    )
                ]
            ),
            text_turn("held"),
        ]
    )
    holder = spawn(["-p", "HOLDER", "--continue", *BYPASS], repo, env)
    try:
        # The tool starts mid-stream; its assistant message is on disk once the stream ended.
        _wait_for(lambda: (repo / "holding").exists() and b'"hold"' in path.read_bytes())
        lines_before = path.read_bytes().count(b"\n")
        for flag in (["--continue"], ["--resume", session_id]):
            second = lathe(["-p", "INTRUDER", *flag], repo, env)
            assert second.returncode == 2, second.stderr
            assert session_id in second.stderr and f"pid {holder.pid}" in second.stderr
        assert path.read_bytes().count(b"\n") == lines_before  # it wrote nothing
        assert b"INTRUDER" not in path.read_bytes()
        (repo / "release").touch()
        out, err = holder.communicate(timeout=60)
        assert holder.returncode == 0 and out.strip() == "held", err
    finally:
        if holder.poll() is None:
            holder.kill()
    fake_api.load([text_turn("after")])
    after = lathe(["-p", "AFTER", "--continue"], repo, env)
    assert after.returncode == 0, after.stderr
    seen = _messages_text(fake_api.bodies()[-1])
    assert "FIRST" in seen and "HOLDER" in seen and "INTRUDER" not in seen
    assert _bad_requests(fake_api) == []


def test_kill_9_during_an_edit_leaves_no_temporary_file_after_the_next_start(fake_api, repo):
    env = env_for(fake_api)
    big = repo / "huge.txt"
    big.write_bytes(b"needle\n" + b"z" * 40_000_000 + b"\n")
    before = big.read_bytes()
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(big), "limit": 5}, "r")]),
            turn_of(
                [
                    tool_use_block(
                        "Edit",
                        {"file_path": str(big), "old_string": "needle", "new_string": "thread"},
                        "e",
                    )
                ]
            ),
            text_turn("edited"),
        ]
    )
    proc = spawn(["-p", "EDIT", *BYPASS], repo, env)
    try:
        _wait_for(lambda: any(repo.glob(".huge.txt.lathe-*.tmp")), timeout=60)
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    # The kill landed while the temporary file existed (40 MB take a while to write and fsync).
    assert list(repo.glob(".huge.txt.lathe-*.tmp"))
    assert big.read_bytes() == before  # atomic: the old file, whole
    fake_api.load([text_turn("fine")])
    assert lathe(["-p", "NEXT", "--continue"], repo, env).returncode == 0
    assert list(repo.glob(".huge.txt.lathe-*.tmp")) == []
    assert big.read_bytes() == before


def test_kill_9_during_bash_leaves_no_working_folder_file_after_a_continue(fake_api, repo):
    """The start-up sweep skips sessions in use, and a `--continue` holds its own session's lock
    before the sweep looks: the continuing lathe removes its session's leftovers itself (found
    by the black-box attack: they stayed until a different session started)."""
    env = env_for(fake_api)
    fake_api.load([text_turn("first")])
    assert lathe(["-p", "FIRST"], repo, env).returncode == 0
    path = find_latest(repo)
    assert path is not None
    results = Path(os.environ["LATHE_STATE_DIR"]) / "sessions" / path.stem / "tool-results"
    fake_api.load([turn_of([tool_use_block("Bash", {"command": "sleep 100"}, "slow")])])
    proc = spawn(["-p", "SLOW", "--continue", *BYPASS], repo, env)
    try:
        _wait_for(lambda: any(results.glob("lathe-pwd-*")), timeout=60)
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert list(results.glob("lathe-pwd-*"))
    for _ in range(2):
        fake_api.load([text_turn("again")])
        assert lathe(["-p", "AGAIN", "--continue"], repo, env).returncode == 0
        assert list(results.glob("lathe-pwd-*")) == []
