"""The Skill tool and `/skill-name` on a real session against the HTTP fake of the API, with
copies of real public skills (tests/fixtures/claude_setups/README.md). What is asserted is what
Claude Code 2.1.332 sent and wrote in the same runs (recorded in CHANGELOG.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.support.engine import make_session

SETUPS = Path(__file__).resolve().parents[2] / "fixtures" / "claude_setups"


def _user_messages(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = _user_messages(body)[-1]
    return [b for b in last if b.get("type") == "tool_result"]


def _with_internal_comms(project: Path) -> Path:
    shutil.copytree(SETUPS / "anthropics-skills" / ".claude", project / ".claude")
    return project / ".claude" / "skills" / "internal-comms"


async def test_listed_to_the_model_and_loaded_only_when_used(fake_api, project, monkeypatch):
    folder = _with_internal_comms(project)
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "internal-comms", "args": "3P"}, "s1")]),
            turn_of(
                [
                    tool_use_block(
                        "Read", {"file_path": str(folder / "examples" / "3p-updates.md")}, "r1"
                    )
                ]
            ),
            text_turn("written"),
        ]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    result = await session.run_turn("write a 3P update")
    assert result.result_text == "written" and not result.is_error
    first, second, third = fake_api.bodies()
    assert "Skill" in [t["name"] for t in first["tools"]]
    system = "\n".join(b["text"] for b in first["system"])
    assert (
        "The following skills are available for use with the Skill tool:\n\n- internal-comms: A set"
        in system
    )
    body = (folder / "SKILL.md").read_text().split("---\n", 2)[2]
    # The body is not sent until the skill is used.
    assert body.strip()[:60] not in json.dumps(first)
    last = _user_messages(second)[-1]
    assert last[0] == {
        "type": "tool_result",
        "tool_use_id": "s1",
        "content": "Launching skill: internal-comms",
    }
    assert last[1]["type"] == "text"
    assert last[1]["text"] == f"Base directory for this skill: {folder}\n\n{body}\n\nARGUMENTS: 3P"
    # The skill's own files are readable (a project skill is inside the working folder).
    [read] = _results(third)
    assert not read.get("is_error") and "3P" in json.dumps(read["content"])
    assert result.permission_denials == ()
    # The transcript line of the result carries Claude Code's toolUseResult.
    lines = [json.loads(x) for x in session.parts.transcript.path.read_text().splitlines()]
    skill_line = next(x for x in lines if "Launching skill" in json.dumps(x.get("message", {})))
    assert skill_line["toolUseResult"] == {"success": True, "commandName": "internal-comms"}
    await session.close()


def _user_skill(name: str, source: Path) -> Path:
    import os

    target = Path(os.environ["HOME"]) / ".claude" / "skills" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target)
    return target


async def test_allowed_tools_ask_then_apply_as_rules_for_the_turn_only(
    fake_api, project, monkeypatch
):
    """anthropics/claude-plugins-official's example-command (`allowed-tools: [Read, Glob, Grep,
    Bash]`): like Claude Code, a skill with allowed-tools is not loaded unasked; allowed by
    `Skill(example-command)`, its Bash rule lets Bash run unasked until the turn ends."""
    _user_skill(
        "example-command",
        SETUPS / "anthropics-claude-plugins-official" / ".claude" / "skills" / "example-command",
    )
    fake_api.load(
        [turn_of([tool_use_block("Skill", {"skill": "example-command"}, "s0")]), text_turn("no")]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    refused = await session.run_turn("go")
    [res] = _results(fake_api.bodies()[-1])
    assert res["is_error"] and "Permission to use Skill was denied" in res["content"]
    assert [d["tool_name"] for d in refused.permission_denials] == ["Skill"]
    await session.close()

    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "example-command", "args": "a1 b2"}, "s1")]),
            turn_of([tool_use_block("Bash", {"command": "touch made-in-skill"}, "b1")]),
            text_turn("done"),
            turn_of([tool_use_block("Bash", {"command": "touch made-after"}, "b2")]),
            text_turn("after"),
        ]
    )
    opts = CliOptions(allowed_tools=["Skill(example-command)"])
    session, _ = make_session(fake_api, project, opts=opts, monkeypatch=monkeypatch)
    during = await session.run_turn("use it")
    assert during.permission_denials == ()
    assert (project / "made-in-skill").exists()
    text = _user_messages(fake_api.bodies()[-2])[-1][1]["text"]
    assert "The user invoked this with: a1 b2" in text
    after = await session.run_turn("again")
    assert not (project / "made-after").exists()
    assert [d["tool_name"] for d in after.permission_denials] == ["Bash"]
    await session.close()


async def test_refusals_match_claude_code(fake_api, project, monkeypatch):
    root = project / ".claude" / "skills"
    (root / "hidden").mkdir(parents=True)
    (root / "hidden" / "SKILL.md").write_text(
        "---\ndescription: d\ndisable-model-invocation: true\n---\nH"
    )
    (root / "shown").mkdir()
    (root / "shown" / "SKILL.md").write_text("---\ndescription: s\n---\nS")
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "hidden"}, "h")]),
            turn_of([tool_use_block("Skill", {"skill": "nosuch"}, "n")]),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    await session.run_turn("go")
    bodies = fake_api.bodies()
    assert "hidden" not in "\n".join(b["text"] for b in bodies[0]["system"])
    [hidden] = _results(bodies[1])
    assert hidden["is_error"] and hidden["content"].startswith(
        "<tool_use_error>Skill hidden cannot be used with Skill tool due to disable-model-invocation."
    )
    [unknown] = _results(bodies[2])
    assert unknown["content"] == "<tool_use_error>Unknown skill: nosuch</tool_use_error>"
    await session.close()


async def test_typed_as_a_slash_command(fake_api, project, monkeypatch):
    folder = _with_internal_comms(project)
    fake_api.load([text_turn("ok")])
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    await session.run_turn("/internal-comms an FAQ")
    sent = _user_messages(fake_api.bodies()[0])[-1]
    assert sent[0]["text"] == (
        "<command-message>internal-comms</command-message>\n"
        "<command-name>/internal-comms</command-name>\n"
        "<command-args>an FAQ</command-args>"
    )
    assert sent[1]["text"].startswith(f"Base directory for this skill: {folder}\n\n")
    assert sent[1]["text"].endswith("ARGUMENTS: an FAQ")
    await session.close()


async def test_no_skills_no_tool_and_no_listing(fake_api, project, monkeypatch):
    fake_api.load([text_turn("ok")])
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    await session.run_turn("hi")
    body = fake_api.bodies()[0]
    assert "Skill" not in [t["name"] for t in body["tools"]]
    assert "Skill tool" not in json.dumps(body["system"])
    await session.close()


async def test_a_denied_skill_tool_takes_its_listing_with_it(fake_api, project, monkeypatch):
    _with_internal_comms(project)
    fake_api.load([text_turn("ok")])
    opts = CliOptions(disallowed_tools=["Skill"])
    session, _ = make_session(fake_api, project, opts=opts, monkeypatch=monkeypatch)
    await session.run_turn("hi")
    body = fake_api.bodies()[0]
    assert "Skill" not in [t["name"] for t in body["tools"]]
    assert "internal-comms" not in json.dumps(body["system"])
    await session.close()


async def test_bang_lines_run_when_the_model_loads_the_skill(fake_api, project, monkeypatch):
    """As Claude Code 2.1.332 did (measured): `!`cmd`` in a skill loaded by the tool is replaced
    by its output; a command no rule allows is not run and the skill is not loaded: the tool's
    result is the error (ext-r4 F2)."""
    root = project / ".claude" / "skills"
    (root / "dyn").mkdir(parents=True)
    (root / "dyn" / "SKILL.md").write_text("---\ndescription: d\n---\nNow: !`echo DYN-OUT`\nEnd.\n")
    (root / "den").mkdir(parents=True)
    (root / "den" / "SKILL.md").write_text(
        "---\ndescription: d\n---\nNot: !`touch bang-made`\nAfter: !`echo NEVER-RAN`\n"
    )
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "dyn"}, "s1")]),
            turn_of([tool_use_block("Skill", {"skill": "den"}, "s2")]),
            text_turn("ok"),
        ]
    )
    session, _ = make_session(fake_api, project, monkeypatch=monkeypatch)
    await session.run_turn("go")
    text = _user_messages(fake_api.bodies()[1])[-1][1]["text"]
    assert "Now: DYN-OUT\n" in text and "End." in text
    last = _user_messages(fake_api.bodies()[2])[-1]
    result = next(b for b in last if b.get("type") == "tool_result" and b["tool_use_id"] == "s2")
    assert result["is_error"] is True
    assert str(result["content"]).startswith(
        'Shell command permission check failed for pattern "!`touch bang-made`": '
    )
    assert "NEVER-RAN" not in json.dumps(fake_api.bodies()[2])
    assert not (project / "bang-made").exists()
    await session.close()
