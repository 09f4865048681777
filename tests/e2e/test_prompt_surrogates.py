"""A lone surrogate in a prompt (argv's escape of a byte that is not UTF-8, or a JSON "\\ud800"
on stream-json input) is made U+FFFD where the engine takes the prompt: it reaches the API and
the transcript, and the session goes on (kept as is, it would fail every later request)."""

from __future__ import annotations

import json
import subprocess
import sys

from app.model.scenario import text_turn
from tests.e2e.test_headless_cli import env_for, lathe, repo

__all__ = ["repo"]  # the fixture


def test_print_mode_prompt_with_a_stray_byte(fake_api, repo):
    fake_api.load([text_turn("first"), text_turn("second")])
    # "\udcff" reaches lathe's argv as the byte 0xff, which Python gives back as "\udcff".
    proc = lathe(["-p", "bad \udcff byte"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "first"
    proc = lathe(["-p", "and now?", "--continue"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_api.bodies()[-1]["messages"], ensure_ascii=False)
    assert "bad \ufffd byte" in sent and "and now?" in sent


def test_stream_json_prompt_with_a_lone_surrogate(fake_api, repo):
    fake_api.load([text_turn("first"), text_turn("second")])
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": text}})
        for text in ("bad \ud800 char", "and now?")
    ]
    assert "\\ud800" in lines[0]
    proc = subprocess.run(
        [sys.executable, "-m", "app", "-p", "--input-format", "stream-json",
         "--output-format", "stream-json", "--verbose"],
        input="\n".join(lines) + "\n", cwd=repo, env=env_for(fake_api),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    results = [m for m in map(json.loads, proc.stdout.splitlines()) if m.get("type") == "result"]
    assert [r["is_error"] for r in results] == [False, False]
    sent = json.dumps(fake_api.bodies()[-1]["messages"], ensure_ascii=False)
    assert "bad \ufffd char" in sent and "and now?" in sent
