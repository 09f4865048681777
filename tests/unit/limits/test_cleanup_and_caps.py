"""What crashes leave behind is cleaned at the next start, only that; persisted outputs are capped;
a session has one writer, and a dead writer's lock never blocks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.execution.output_budget import apply_budget
from app.session_lock import SessionInUse, SessionLock
from app.state_cleanup import clean_state
from tools.files.atomic import clean_interrupted_writes

ROOT = Path(__file__).resolve().parents[3]

KILLED_WRITER = r"""
import os, sys
from tools.files import atomic
# Die at the worst moment: the temporary file is whole, the rename has not happened.
atomic.os.replace = lambda *a: os.kill(os.getpid(), 9)
atomic.atomic_write(sys.argv[1], b"x" * 1_000_000, journal=sys.argv[2])
"""


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_a_killed_writers_temporary_file_goes_and_nothing_else(tmp_path: Path) -> None:
    project, sessions = tmp_path / "project", tmp_path / "state" / "sessions"
    project.mkdir()
    target = project / "f.txt"
    target.write_text("old\n")
    journal = sessions / "s1" / "pending-writes"
    proc = _child(KILLED_WRITER, str(target), str(journal))
    assert proc.returncode == -signal.SIGKILL
    left = list(project.glob(".f.txt.lathe-*.tmp"))
    assert len(left) == 1 and left[0].stat().st_size == 1_000_000
    # Look-alikes no journal names, and a live writer's file, are not ours to remove.
    lookalike = project / ".g.txt.lathe-1-abc.tmp"
    lookalike.write_text("keep")
    live = subprocess.Popen(["sleep", "30"])
    try:
        live_tmp = project / f".h.txt.lathe-{live.pid}-cafe01.tmp"
        live_tmp.write_text("in progress")
        (journal / f"{live.pid}-cafe01").write_bytes(os.fsencode(str(live_tmp)))
        # A corrupted entry (of a dead pid) that names a user's file is not followed.
        dead = subprocess.Popen(["true"])
        dead.wait()
        (journal / f"{dead.pid}-beef").write_bytes(os.fsencode(str(target)))
        removed = clean_interrupted_writes(sessions)
    finally:
        live.kill()
        live.wait()
    assert removed == [str(left[0])] and not left[0].exists()
    assert target.read_text() == "old\n" and lookalike.exists() and live_tmp.exists()
    assert sorted(p.name for p in journal.iterdir()) == [f"{live.pid}-cafe01"]


def _age(folder: Path, days: float) -> None:
    when = time.time() - days * 86400
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, (when, when), follow_symlinks=False)


def test_retention_removes_old_unused_sessions_and_leftovers(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    for name in ("old", "recent", "old-but-in-use"):
        (sessions / name / "tool-results").mkdir(parents=True)
        (sessions / name / "tool-results" / "t.txt").write_text("output")
    (sessions / "recent" / "tool-results" / "lathe-pwd-abc").write_text("/x")
    in_use = SessionLock.acquire(sessions / "old-but-in-use", "old-but-in-use")
    try:
        _age(sessions / "old", 31)
        _age(sessions / "old-but-in-use", 31)
        _age(sessions / "recent", 29)
        report = clean_state(tmp_path, retention_days=30)
    finally:
        in_use.release()
    assert report.sessions == ["old"] and report.pwd_files == 1
    assert sorted(p.name for p in sessions.iterdir()) == ["old-but-in-use", "recent"]
    assert (sessions / "recent" / "tool-results" / "t.txt").exists()


def test_persisted_output_is_capped_and_says_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LATHE_MAX_PERSISTED_OUTPUT_CHARS", "1000")
    block = {"type": "tool_result", "tool_use_id": "t", "content": "a" * 5000}
    sent, path = apply_budget(block, 100, str(tmp_path), "t")
    assert path is not None and Path(path).read_text() == "a" * 1000
    assert (
        "Output too large (5000 characters). Only the first 1000 characters were saved"
        in (sent["content"])
    )
    assert "LATHE_MAX_PERSISTED_OUTPUT_CHARS" in sent["content"]
    monkeypatch.delenv("LATHE_MAX_PERSISTED_OUTPUT_CHARS")
    sent, path = apply_budget(block, 100, str(tmp_path), "u")
    assert "Full output saved to: " in sent["content"] and Path(str(path)).stat().st_size == 5000


FULL_DISK = r"""
import json, resource, signal, sys
from app.execution.output_budget import apply_budget
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))
block = {"type": "tool_result", "tool_use_id": "t", "content": "b" * 50000}
sent, path = apply_budget(block, 100, sys.argv[1], "t")
print(json.dumps({"content": sent["content"], "path": path}))
"""


def test_a_full_disk_is_reported_honestly(tmp_path: Path) -> None:
    proc = _child(FULL_DISK, str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["path"] is None and "could not be saved to a file" in result["content"]
    assert list((tmp_path / "tool-results").iterdir()) == []  # no half-written file


HOLDER = r"""
import sys, time
from pathlib import Path
from app.session_lock import SessionLock
SessionLock.acquire(Path(sys.argv[1]), "s")
print("locked", flush=True)
time.sleep(60)
"""


def test_one_writer_and_a_dead_writers_lock_does_not_block(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "s"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(SessionInUse) as info:
            SessionLock.acquire(folder, "s")
        assert info.value.pid == holder.pid and f"pid {holder.pid}" in str(info.value)
    finally:
        holder.kill()  # SIGKILL: no cleanup ran, the pid is still in the file
        holder.wait()
    assert (folder / "writer.lock").read_text().strip() == str(holder.pid)
    lock = SessionLock.acquire(folder, "s")
    assert (folder / "writer.lock").read_text().strip() == str(os.getpid())
    # The same process may hold it twice (the TUI's /resume); it is released with the last.
    again = SessionLock.acquire(folder, "s")
    lock.release()
    again.release()
    assert (folder / "writer.lock").read_text() == ""
