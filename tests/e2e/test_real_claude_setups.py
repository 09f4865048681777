"""Real public Claude Code setups (tests/fixtures/claude_setups/, copied unchanged from MIT
repositories) run through lathe's real hook runner, the real session and the real `lathe -p`,
against the HTTP fake of the API. Needs bash, jq, git and node, as the setups themselves do."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe
from tests.support.engine import make_session
from tools.decisions import PermissionDecision

SETUPS = Path(__file__).resolve().parents[1] / "fixtures" / "claude_setups"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("bash", "jq", "git", "node")),
    reason="the copied setups need bash, jq, git and node",
)


def _bodies(fake_api) -> list[str]:
    return [json.dumps(r.body) for r in fake_api.requests if r.path.endswith("/messages")]


def _git_repo(project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)


def test_moo_md_settings_json_hooks_all_work(fake_api, project: Path) -> None:
    """saadshahd/moo.md: SessionStart context from git + ROADMAP.md, a PreToolUse deny of
    references/ writes, a PostToolUse warning on a long ROADMAP.md, a Stop hook that blocks once
    (guarded by stop_hook_active)."""
    _git_repo(project)
    shutil.copytree(SETUPS / "saadshahd-moo.md" / ".claude", project / ".claude")
    roadmap = project / "ROADMAP.md"
    roadmap.write_text("# Roadmap\n- [ ] first\n- [ ] second\n- [x] done\n")
    long_roadmap = "".join(f"- [ ] item {i}\n" for i in range(101))
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": str(roadmap)}, "r1"),
                    tool_use_block(
                        "Write",
                        {"file_path": str(project / "references" / "notes.md"), "content": "x"},
                        "w1",
                    ),
                ]
            ),
            turn_of(
                [
                    tool_use_block(
                        "Write", {"file_path": str(roadmap), "content": long_roadmap}, "w2"
                    )
                ]
            ),
            text_turn("done"),
            text_turn("roadmap reviewed"),
        ]
    )
    proc = lathe(["-p", "go", "--allowedTools", "Write,Read"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert "roadmap reviewed" in proc.stdout
    bodies = _bodies(fake_api)
    assert len(bodies) == 4
    assert "Roadmap: 2 pending items. Read ROADMAP.md to review." in bodies[0]
    assert not (project / "references").exists()
    assert "No references/ directories" in bodies[1]
    assert "WARNING: ROADMAP.md is 101 lines (max 100)." in bodies[2]
    assert "Stop hook feedback" in bodies[3] and "Before ending: ROADMAP.md" in bodies[3]


def _karanb192_settings(project: Path) -> None:
    source = SETUPS / "karanb192-claude-code-hooks"
    hooks: dict[str, list[object]] = {}
    for name in ("block-dangerous-commands", "notify-permission"):
        plugin = json.loads((source / f"{name}.hooks.json").read_text())
        # Plugin hooks name ${CLAUDE_PLUGIN_ROOT}; as a settings.json entry it is the script.
        for event, entries in plugin["hooks"].items():
            for entry in entries:
                for handler in entry["hooks"]:
                    handler["command"] = handler["command"].replace(
                        "${CLAUDE_PLUGIN_ROOT}", str(source)
                    )
            hooks.setdefault(event, []).extend(entries)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _log_lines(home: Path) -> list[dict[str, object]]:
    logs = sorted((home / ".claude" / "hooks-logs").glob("*.jsonl"))
    return [json.loads(line) for f in logs for line in f.read_text().splitlines()]


def test_karanb192_block_dangerous_commands_denies_through_lathe_p(fake_api, project: Path) -> None:
    _karanb192_settings(project)
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "git reset --hard HEAD~1"}, "b1"),
                    tool_use_block("Bash", {"command": "echo fine > ok.txt"}, "b2"),
                ]
            ),
            text_turn("done"),
        ]
    )
    env = env_for(fake_api)
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], project, env)
    assert proc.returncode == 0, proc.stderr
    assert (project / "ok.txt").read_text().strip() == "fine"
    results = {
        b["tool_use_id"]: json.dumps(b)
        for m in fake_api.requests[-1].body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    assert "[git-reset-hard] git reset --hard loses uncommitted work" in results["b1"]
    blocked = [e for e in _log_lines(Path(env["HOME"])) if e.get("level") == "BLOCKED"]
    assert blocked and blocked[0]["id"] == "git-reset-hard"
    assert blocked[0]["permission_mode"] == "default"


async def test_karanb192_notify_permission_fires_when_the_dialog_shows(
    fake_api, project: Path, monkeypatch
) -> None:
    """Notification (permission_prompt) through the real session: the script logs its input."""
    _karanb192_settings(project)
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": "touch x"}, "b1")]), text_turn("ok")]
    )
    session, events = make_session(fake_api, project, interactive=True, monkeypatch=monkeypatch)
    task = asyncio.ensure_future(session.run_turn("go"))
    while not events.prompts:
        await asyncio.sleep(0.01)
    logs_home = Path(os.environ["HOME"])
    for _ in range(200):  # node starts in ~50 ms; the hook never holds the dialog up
        inputs = [e for e in _log_lines(logs_home) if e.get("level") == "INPUT"]
        if inputs:
            break
        await asyncio.sleep(0.05)
    assert inputs[0]["notification_type"] == "permission_prompt"
    assert inputs[0]["message"] == "Claude needs your permission to use Bash"
    assert events.prompts[0].resolver.resolve(PermissionDecision.allow())
    await asyncio.wait_for(task, 20)
    await session.close()


def test_thopter_last_message_reads_the_transcript_a_stop_hook_gets(
    fake_api, project: Path
) -> None:
    """telepath-computer/thopter-swarm's Stop helper reads the transcript for the last
    `type: "assistant"` line: lathe's transcript lines are in Claude Code's shape, so it finds
    the answer there as well as in Stop's `last_assistant_message`."""
    script = SETUPS / "telepath-computer-thopter-swarm" / "thopter-last-message.mjs"
    command = (
        'input=$(cat); t=$(echo "$input" | jq -r .transcript_path); '
        f'node "{script}" "$t" > from_transcript.txt; '
        'echo "$input" | jq -r .last_assistant_message > from_input.txt; cp "$t" transcript.jsonl'
    )
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}})
    )
    fake_api.load([text_turn("the final answer")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert (project / "from_input.txt").read_text().strip() == "the final answer"
    lines = [json.loads(x) for x in (project / "transcript.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["system", "user", "assistant"]
    assert (project / "from_transcript.txt").read_text() == "the final answer"
