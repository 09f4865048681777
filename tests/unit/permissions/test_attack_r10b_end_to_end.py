"""Round 10 of the black-box attack, F2 and F4, through the real `lathe -p` with a scripted model.

A repository ships `vendor -> ~/.ssh`. F2: `grep -R MARK .` must not print the key; F4: `echo */*`
must not print the names in ~/.ssh. The control passes the linked folder with `--add-dir` (it is
then a working folder): the same call runs and prints, so the tests can fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.unit.permissions.helpers import make_env

ROOT = Path(__file__).resolve().parents[3]
MARK = "PRIVATE_KEY_MARK_R10"
NAME = "idkey_NAME_R10"


def _run(tmp: Path, command: str, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    env = {**os.environ, **make_env(tmp), "PYTHONPATH": str(ROOT), "ANTHROPIC_API_KEY": "k"}
    ssh = Path(env["HOME"]) / ".ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    (ssh / NAME).write_text(MARK + "\n")
    project = tmp / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "README.md").write_text("hi\n")
    os.symlink(ssh, project / "vendor")  # the checked-in link
    turns: list[dict[str, Any]] = [
        {"blocks": [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]}
    ]
    script = tmp / "scenario.json"
    script.write_text(json.dumps({"turns": turns, "final_text": "END"}))
    argv = [sys.executable, "-m", "app", "-p", "go", "--model-script", str(script)]
    proc = subprocess.run(
        [*argv, "--output-format", "stream-json", "--verbose", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    tool_results = [
        json.dumps(block.get("content"))
        for msg in results
        if msg.get("type") == "user"
        for block in msg.get("message", {}).get("content", [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    return proc, "\n".join(tool_results)


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("control", [False, True], ids=["link-outside", "control-added-dir"])
@pytest.mark.parametrize(
    ("command", "sentinel"), [("grep -R PRIVATE_KEY .", MARK), ("echo */*", NAME)],
    ids=["F2-grep-R", "F4-glob"],
)  # fmt: skip
def test_a_checked_in_link_outside(
    tmp_path: Path, command: str, sentinel: str, control: bool, mode: str
) -> None:
    extra = ("--add-dir", str(tmp_path / "home" / ".ssh")) if control else ()
    proc, output = _run(tmp_path, command, "--permission-mode", mode, *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert output, proc.stdout[-2000:]  # the call got its tool_result
    if control:
        assert sentinel in output, output[-2000:]
    else:
        assert sentinel not in output, output[-2000:]
        assert "outside the working folders" in output, output[-2000:]
