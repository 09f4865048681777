"""`lathe -p` with real public skills, transcript lines in Claude Code's shape read by a real
jq Stop hook, and a transcript in lathe's older format resumed (issue 15)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.transcript import project_slug
from tests.e2e.test_headless_cli import env_for, lathe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SETUPS = FIXTURES / "claude_setups"
# The fields Claude Code 2.1.332 wrote on every user and assistant line in the recorded runs
# (it writes more of its own, such as promptId and entrypoint, that no reader here needs).
CC_LINE_KEYS = {
    "parentUuid",
    "isSidechain",
    "type",
    "message",
    "uuid",
    "timestamp",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
}
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _transcript(project: Path) -> list[dict]:
    folder = Path(os.environ["LATHE_STATE_DIR"]) / "projects" / project_slug(project)
    [path] = folder.glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def _git(project: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "feature-x", str(project)], check=True)


def test_a_real_user_skill_runs_headless_and_its_files_follow_claude_codes_rules(
    fake_api, project: Path
) -> None:
    """obra/superpowers requesting-code-review in ~/.claude/skills: loaded without asking (no
    allowed-tools); its sibling file is outside the working folder, so `-p` refuses reading it
    without a rule, as Claude Code 2.1.332 did in the same run, and reads it with one."""
    skills = Path(os.environ["HOME"]) / ".claude" / "skills"
    shutil.copytree(SETUPS / "obra-superpowers" / "skills", skills)
    reviewer = skills / "requesting-code-review" / "code-reviewer.md"
    script = [
        turn_of([tool_use_block("Skill", {"skill": "requesting-code-review"}, "s1")]),
        turn_of([tool_use_block("Read", {"file_path": str(reviewer)}, "r1")]),
        text_turn("reviewed"),
    ]
    fake_api.load(script)
    proc = lathe(["-p", "review", "--output-format", "json"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [d["tool_name"] for d in out["permission_denials"]] == ["Read"]
    loaded = json.dumps(fake_api.bodies()[1]["messages"][-1])
    assert "Launching skill: requesting-code-review" in loaded
    assert "Dispatch a code reviewer subagent" in loaded
    fake_api.load(script)
    rule = f"Read(/{skills}/**)"  # `//abs/path`: an absolute path in rule syntax
    proc = lathe(
        ["-p", "review", "--allowedTools", rule, "--output-format", "json"],
        project,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["permission_denials"] == []
    first_line = reviewer.read_text().splitlines()[0]
    assert f"1\\t{first_line}" in json.dumps(fake_api.bodies()[-1]["messages"][-1])


def test_slash_skill_headless_with_a_malformed_neighbour(fake_api, project: Path) -> None:
    shutil.copytree(SETUPS / "anthropics-claude-plugins-official" / ".claude", project / ".claude")
    broken = project / ".claude" / "skills" / "broken" / "SKILL.md"
    broken.parent.mkdir()
    broken.write_text("---\nname: broken\ndescription: [x\n  - x: : y\n---\nb\n")
    fake_api.load([text_turn("configured")])
    proc = lathe(["-p", "/configure 123:abc"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "configured"
    assert f"skill {broken} skipped: line 4" in proc.stderr
    sent = fake_api.bodies()[0]["messages"][-1]["content"]
    assert sent[0]["text"].startswith("<command-message>configure</command-message>")
    assert "Arguments passed: `123:abc`" in sent[1]["text"]


def test_transcript_lines_have_claude_codes_shape(fake_api, project: Path) -> None:
    _git(project)
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "echo hi"}, "b1")]),
            text_turn("said hi"),
        ]
    )
    proc = lathe(["-p", "say hi", "--allowedTools", "Bash(echo:*)"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    lines = _transcript(project)
    assert [x["type"] for x in lines] == ["system", "user", "assistant", "user", "assistant"]
    assert lines[0]["subtype"] == "session_start"
    previous = None
    for line in lines:
        keys = CC_LINE_KEYS if line["type"] != "system" else CC_LINE_KEYS - {"message"}
        assert keys <= set(line), keys - set(line)
        assert line["parentUuid"] == previous
        previous = line["uuid"]
        assert ISO.match(line["timestamp"]) and line["cwd"] == str(project.resolve())
        assert line["gitBranch"] == "feature-x" and line["isSidechain"] is False
        assert line["userType"] == "external" and line["sessionId"] == lines[0]["sessionId"]
    result = lines[3]
    assert result["toolUseResult"] == {
        "stdout": "hi",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert result["sourceToolAssistantUUID"] == lines[2]["uuid"]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the Stop hook is jq")
def test_a_jq_stop_hook_reading_assistant_lines_sees_the_answer(fake_api, project: Path) -> None:
    """The common Stop hook that looks for the last assistant text in the transcript: with
    `type: "message"` lines it found nothing and blocked, forcing an extra turn."""
    command = (
        "t=$(jq -r .transcript_path); "
        'last=$(jq -rs \'[.[] | select(.type=="assistant")] | last | .message.content[]? '
        '| select(.type=="text") | .text\' "$t"); '
        'case "$last" in *DONE*) exit 0;; *) echo "say DONE when done" >&2; exit 2;; esac'
    )
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}})
    )
    fake_api.load([text_turn("all DONE")])
    proc = lathe(["-p", "work"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert len(fake_api.bodies()) == 1  # no forced extra turn
    fake_api.load([text_turn("still working"), text_turn("now DONE")])
    proc = lathe(["-p", "work"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    bodies = fake_api.bodies()
    assert len(bodies) == 3 and "say DONE when done" in json.dumps(bodies[-1]["messages"][-1])


def test_a_transcript_in_the_older_format_resumes_and_goes_on_in_the_new(
    fake_api, project: Path
) -> None:
    session_id = "0b5e7f3a-5d6c-4a39-9f1e-6a3c2b1d0e11"
    folder = Path(os.environ["LATHE_STATE_DIR"]) / "projects" / project_slug(project)
    folder.mkdir(parents=True)
    path = folder / f"{session_id}.jsonl"
    shutil.copy(FIXTURES / "transcripts" / "lathe-0.1-format.jsonl", path)
    fake_api.load([text_turn("resumed")])
    proc = lathe(["-p", "NEW-PROMPT", "--resume", session_id], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_api.bodies()[0]["messages"])
    # From the compaction on: its summary, the prompt after it, the tool_use repaired.
    assert "OLD-SUMMARY" in sent and "OLD-PROMPT-TWO" in sent and "NEW-PROMPT" in sent
    assert "OLD-PROMPT-ONE" not in sent
    assert "The session ended before this tool returned a result" in sent
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[-1]["type"] == "assistant"
    assert lines[-1]["sessionId"] == session_id and lines[-2]["parentUuid"] == "u-6"
    fake_api.load([text_turn("again")])
    proc = lathe(["-p", "THIRD", "--resume", session_id], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_api.bodies()[-1]["messages"])
    assert "OLD-SUMMARY" in sent and "NEW-PROMPT" in sent and "resumed" in sent
