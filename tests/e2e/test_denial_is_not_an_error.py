"""A denied call is judged on its own: in `lathe -p` it never cancels the other tools of its batch
(Claude Code denies each call and runs the allowed ones). Real CLI, real engine, HTTP fake API."""

from __future__ import annotations

import json
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe, lines


def test_denied_bash_does_not_cancel_its_siblings(fake_api, project: Path) -> None:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\n")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "touch denied.txt"}, "b1"),
                    tool_use_block("Bash", {"command": "touch ok.txt"}, "b2"),
                    tool_use_block("Read", {"file_path": "a.txt"}, "r1"),
                    tool_use_block("Write", {"file_path": "w.txt", "content": "w\n"}, "w1"),
                ]
            ),
            text_turn("done"),
        ]
    )
    proc = lathe(
        [
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--allowedTools",
            "Bash(touch ok.txt),Write",
        ],
        project,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    user = next(o for o in lines(proc.stdout) if o["type"] == "user")["message"]["content"]
    by_id = {b["tool_use_id"]: b for b in user}
    assert list(by_id) == ["b1", "b2", "r1", "w1"]  # one result for each, in order
    assert by_id["b1"]["is_error"] and "denied" in json.dumps(by_id["b1"]["content"])
    for tool_id in ("b2", "r1", "w1"):
        assert "Cancelled" not in json.dumps(by_id[tool_id]["content"]), by_id[tool_id]
        assert not by_id[tool_id].get("is_error"), by_id[tool_id]
    assert "alpha" in json.dumps(by_id["r1"]["content"])
    assert not (project / "denied.txt").exists()
    assert (project / "ok.txt").exists() and (project / "w.txt").read_text() == "w\n"
    result = lines(proc.stdout)[-1]
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["b1"]
