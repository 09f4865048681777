"""A transcript that cannot be written (a full disk) ends `lathe -p` with an error, not a success.

The disk is made "full" for the lathe process alone with RLIMIT_FSIZE: a write past the limit
fails with EFBIG (Python ignores SIGXFSZ), which takes the same path as ENOSPC in the writer.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from app.model.scenario import text_turn
from app.transcript import TranscriptWriter
from tests.e2e.test_headless_cli import env_for

LIMIT = 64 * 1024


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_lost_transcript_line_makes_the_run_fail(fake_api, project: Path, tmp_path: Path):
    fake_api.load([text_turn("answered")])
    prompt = "remember this " + "x" * (LIMIT + 1000)  # its transcript line cannot fit
    done = subprocess.run(
        [sys.executable, "-m", "app", "-p", prompt, "--output-format", "json"],
        cwd=project,
        env=env_for(fake_api, LATHE_STATE_DIR=str(tmp_path / "state")),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_small_files,
    )
    assert fake_api.bodies(), "the model was asked"
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["is_error"] is True
    assert result["subtype"] == "error_during_execution"
    assert "not saved" in result["result"] and "cannot write transcript" in result["result"]
    assert "transcript line(s) not saved" in done.stderr


def test_the_writer_counts_every_lost_line(tmp_path: Path):
    writer = TranscriptWriter(Path("/dev/full"))
    assert not writer.append({"type": "message", "n": 1})
    assert not writer.append({"type": "message", "n": 2})
    assert writer.lost == 2
    assert writer.first_loss is not None and "No space left" in writer.first_loss
    ok = TranscriptWriter(tmp_path / "t.jsonl")
    assert ok.append({"type": "message"}) and ok.lost == 0 and ok.first_loss is None
