"""ext-r1 command and skill findings through the real `lathe -p` and the HTTP fake: `!` in
arguments (F12), custom commands through the Skill tool (F14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.commands.arguments import substitute
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _say(project: Path) -> None:
    (project / ".git").mkdir(exist_ok=True)
    (project / ".claude" / "commands").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "commands" / "say.md").write_text("Say: $ARGUMENTS\n")
    (project / ".claude" / "commands" / "pos.md").write_text("First: $0 then $1\n")
    skill = project / ".claude" / "skills" / "sayskill"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\ndescription: say\n---\nSay: $ARGUMENTS\n")


@pytest.mark.parametrize(
    "args",
    ["!`touch inj`", "x !`touch inj`", "`!`touch inj``", "a\n!`touch inj`"],
)
def test_arguments_are_escaped_as_claude_code_escapes_them(args):
    out = substitute("Say: $ARGUMENTS and $0", args)
    assert "!`" not in out
    assert "! `" in out or "\\!" in out


@pytest.mark.parametrize("command", ["/say !`touch inj`", '/pos "!`touch inj`" !`touch inj`'])
def test_a_bang_inside_command_arguments_never_runs(fake_api, project, command):
    _say(project)
    fake_api.load([text_turn("done")])
    proc = lathe(["-p", command, "--allowedTools", "Bash(touch:*)"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert not (project / "inj").exists()
    # The header quotes the arguments as typed (as Claude Code's does); the body has them escaped.
    body = fake_api.bodies()[0]["messages"][0]["content"][1]["text"]
    assert "touch inj" in body and "!`touch inj`" not in body


@pytest.mark.parametrize("args", ["!`touch inj`", "!`id -un; uname -a`"])
def test_a_bang_inside_a_models_skill_args_never_runs(fake_api, project, args):
    _say(project)
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "sayskill", "args": args}, "toolu_s")]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "hi", "--allowedTools", "Bash(touch:*)"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert not (project / "inj").exists()
    text = json.dumps(fake_api.bodies()[-1]["messages"][-1])
    assert "Say: \\\\! `" in text  # the model reads the escaped text, nothing ran
    assert "Linux" not in text
    assert _tool_result(fake_api, "toolu_s").get("is_error") is not True


def test_custom_commands_are_offered_and_run_through_the_skill_tool(fake_api, project):
    (project / ".git").mkdir()
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("---\ndescription: Say hello\n---\nHELLO-BODY $ARGUMENTS\n")
    (commands / "hidden.md").write_text("---\ndisable-model-invocation: true\n---\nHIDDEN\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "hello", "args": "Bob"}, "toolu_s")]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    first = fake_api.bodies()[0]
    assert "Skill" in [t["name"] for t in first["tools"]]
    system = "".join(b["text"] for b in first["system"])
    assert "- hello: Say hello" in system and "hidden" not in system
    result = _tool_result(fake_api, "toolu_s")
    assert result.get("is_error") is not True
    sent = json.dumps(fake_api.bodies()[1]["messages"][-1])
    assert "Launching skill: hello" in sent and "HELLO-BODY Bob" in sent
    assert "Base directory for this skill" not in sent


def test_skills_run_in_plan_mode_and_their_tools_still_obey_it(fake_api, project):
    (project / ".git").mkdir()
    for name, front in (("plain", ""), ("tooled", "allowed-tools: Bash(touch:*), Write\n")):
        folder = project / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: d\n{front}---\n{name.upper()}-BODY\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "plain"}, "toolu_p")]),
            turn_of([tool_use_block("Skill", {"skill": "tooled"}, "toolu_t")]),
            turn_of([tool_use_block("Bash", {"command": "touch made"}, "toolu_b")]),
            text_turn("done"),
        ]
    )
    proc = lathe(
        ["-p", "hi", "--permission-mode", "plan", "--allowedTools", "Skill(tooled)"],
        project,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    assert _tool_result(fake_api, "toolu_p").get("is_error") is not True
    assert _tool_result(fake_api, "toolu_t").get("is_error") is not True
    assert "TOOLED-BODY" in json.dumps(fake_api.bodies())
    assert _tool_result(fake_api, "toolu_b").get("is_error") is True
    assert not (project / "made").exists()


def test_a_skill_folder_with_a_space_loads_for_the_skill_tool(fake_api, project):
    (project / ".git").mkdir()
    folder = project / ".claude" / "skills" / "sp ace"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\ndescription: spaced\n---\nSPACED-BODY\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "sp ace"}, "toolu_s")]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert "skipped" not in proc.stderr
    assert "- sp ace: spaced" in "".join(b["text"] for b in fake_api.bodies()[0]["system"])
    assert "SPACED-BODY" in json.dumps(fake_api.bodies()[1]["messages"][-1])
