"""Bash output limits and a full disk, with real commands: the spill cap, and ENOSPC on a tiny
real tmpfs used as the session folder (skipped where mounting is not permitted)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.tools.test_bash import make_ctx, run
from tools.bash_output import format_read
from tools.process.background import BackgroundShell
from tools.process.limits import ENV

MB_OF_OUTPUT = "head -c 1000000 /dev/zero | tr '\\0' x"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB filesystem."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip("cannot run mount")
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=10)


async def test_spill_cap_keeps_the_first_bytes_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, "100000")
    ctx = make_ctx(tmp_path)
    command = f"{MB_OF_OUTPUT}; echo; echo THE-END; touch ran-to-the-end; exit 3"
    data, is_error, _ = await run(ctx, command=command)
    assert is_error and data.exit_code == 3 and not data.timed_out
    assert (tmp_path / "work" / "ran-to-the-end").exists()  # the command was not stopped
    assert data.persisted_path is not None
    kept = Path(data.persisted_path).read_text()  # noqa: ASYNC240
    assert kept.startswith("x" * 1000) and len(kept) < 100_000 + 1000
    assert "went past the 100000 bytes cap (LATHE_BASH_MAX_OUTPUT_BYTES)" in data.text
    assert data.text.rstrip().endswith("THE-END")  # the end past the cap is shown
    assert "Exit code 3" in data.text


async def test_a_full_disk_reports_the_exit_code_without_hanging(tmp_path, tiny_disk):
    ctx = make_ctx(tmp_path, session_dir=str(tiny_disk / "session"))
    command = f"{MB_OF_OUTPUT}; echo; echo THE-END; touch ran-to-the-end; exit 4"
    started = time.monotonic()
    data, is_error, _ = await run(ctx, command=command, timeout=20_000)
    assert time.monotonic() - started < 10  # no wait for the timeout
    assert not data.timed_out and data.exit_code == 4 and is_error
    assert (tmp_path / "work" / "ran-to-the-end").exists()
    assert "could not be saved: No space left on device" in data.text
    assert "the command itself ran to the end" in data.text
    assert "Exit code 4" in data.text and "THE-END" in data.text
    assert data.text.startswith("x" * 100)
    assert data.persisted_path is None


async def test_a_full_disk_after_the_spill_still_reports_honestly(tmp_path, tiny_disk):
    # Output that fits on the disk while it spills, then a large stderr that does not.
    ctx = make_ctx(tmp_path, session_dir=str(tiny_disk / "session"))
    command = f"head -c 40000 /dev/zero | tr '\\0' y; ({MB_OF_OUTPUT}) >&2; exit 0"
    data, _, _ = await run(ctx, command=command, timeout=20_000)
    assert data.exit_code == 0 and not data.timed_out
    assert "could not be saved" in data.text


async def test_background_log_cap_and_full_disk(tmp_path, tiny_disk, monkeypatch):
    monkeypatch.setenv(ENV, "10000")
    capped = BackgroundShell("bash_cap", f"{MB_OF_OUTPUT}; echo done >&2", "", tmp_path / "logs")
    monkeypatch.setenv(ENV, str(10 << 20))
    full = BackgroundShell("bash_full", f"{MB_OF_OUTPUT}; exit 5", "", tiny_disk / "logs")
    for shell in (capped, full):
        await shell.start(str(tmp_path))
    await asyncio.wait_for(asyncio.gather(capped.wait(), full.wait()), 20)
    assert capped.stdout_path.stat().st_size == 10000
    read = format_read(capped.read_new())
    assert "<status>completed</status>" in read
    assert "The stdout log reached its cap of 10000 bytes (LATHE_BASH_MAX_OUTPUT_BYTES)" in read
    assert "done" in read
    read = format_read(full.read_new())
    assert "<status>failed</status>" in read and "<exit_code>5</exit_code>" in read
    assert "The stdout log could not be written (No space left on device)" in read


def test_spill_that_cannot_open_its_file_keeps_head_and_tail(tmp_path):
    from tools.process.capture import OutputCapture

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    capture = OutputCapture(blocker / "out.txt", memory_limit=10)
    for _ in range(100):
        capture.feed(b"0123456789")
    capture.finish()
    assert capture.is_spilled and capture.spill_error is not None and not capture.complete
    assert capture.head.startswith("0123456789") and capture.tail.endswith("0123456789")
