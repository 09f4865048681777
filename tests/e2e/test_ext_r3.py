"""Issue 15, ext-fix4, through the real `lathe -p`, the HTTP fake and real hook processes:
plugin hooks' CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA and the manifest's `hooks`, variables in
skill bodies, model aliases, `--agents` in -p, `--add-dir` skills and CLAUDE.md, an agent's
`permissionMode` and `skills`, `context: fork` skills, and the hooks' input fields. Claude Code
2.1.332's behaviour for each was measured against the same fake (CHANGELOG, Round 5).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _result(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _go(fake_api, project: Path, *args: str, **env: str) -> dict:
    (project / ".git").mkdir(exist_ok=True)
    cmd = ["-p", "go", "--output-format", "json", *args]
    return _result(lathe(cmd, project, env_for(fake_api, **env)))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _data_dir(name: str) -> Path:
    return Path(os.environ["HOME"]) / ".claude" / "plugins" / "data" / name


# -- F7: plugin hooks ---------------------------------------------------------------------------

# A guard written as Anthropic's hookify is: its script imports its own package from
# $CLAUDE_PLUGIN_ROOT, and blocks `rm -rf` (exit 2). Without the variable it cannot import.
GUARD = """\
import json, os, sys
root = os.environ.get("CLAUDE_PLUGIN_ROOT")
if not root:
    print("guard import error: no CLAUDE_PLUGIN_ROOT", file=sys.stderr)
    sys.exit(0)
sys.path.insert(0, root)
from guardlib import verdict
event = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PLUGIN_DATA"], "seen.log"), "a") as log:
    log.write(event["tool_input"]["command"] + "\\n")
sys.exit(verdict(event["tool_input"]["command"]))
"""
GUARD_LIB = """\
import sys
def verdict(command):
    if "rm -rf" in command:
        print("Blocked by guard: rm -rf", file=sys.stderr)
        return 2
    return 0
"""


def _guard_plugin(root: Path, log: Path) -> Path:
    _write(root / "guardlib" / "__init__.py", GUARD_LIB)
    _write(root / "hooks" / "guard.py", GUARD)
    guard = {
        "type": "command",
        "command": f"{sys.executable} ${{CLAUDE_PLUGIN_ROOT}}/hooks/guard.py",
    }
    # The shell fills in `${CLAUDE_PLUGIN_ROOT:-unset}` from the environment.
    echo = {"type": "command", "command": f'echo "default:${{CLAUDE_PLUGIN_ROOT:-unset}}" >> {log}'}
    pre = [{"matcher": "Bash", "hooks": [guard, echo]}]
    _write(root / "hooks" / "hooks.json", json.dumps({"hooks": {"PreToolUse": pre}}))
    # The manifest's `hooks`: a table, and a path to a second file.
    inline = {"type": "command", "command": f'echo "inline:$CLAUDE_PLUGIN_DATA" >> {log}'}
    more = {"type": "command", "command": f'echo "file:${{CLAUDE_PLUGIN_ROOT}}" >> {log}'}
    _write(root / "extra-hooks.json", json.dumps({"hooks": {"PreToolUse": [{"hooks": [more]}]}}))
    manifest = {
        "name": "guard",
        "hooks": [{"hooks": {"PreToolUse": [{"hooks": [inline]}]}}, "./extra-hooks.json"],
    }
    _write(root / ".claude-plugin" / "plugin.json", json.dumps(manifest))
    return root


def test_a_plugins_hooks_get_its_root_and_data_folder_and_its_guard_blocks(
    fake_api, project, tmp_path
):
    log = tmp_path / "hooks.log"
    root = _guard_plugin(tmp_path / "guard", log)
    victim = project / "d"
    _write(victim / "keep.txt", "x")
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": f"rm -rf {victim}"}, "toolu_rm")]),
            text_turn("done"),
        ]
    )
    _go(fake_api, project, "--plugin-dir", str(root), "--permission-mode", "bypassPermissions")
    assert victim.is_dir()  # the guard blocked it, as hookify's rule does in Claude Code
    refused = _tool_result(fake_api, "toolu_rm")
    assert refused["is_error"] is True and "Blocked by guard: rm -rf" in json.dumps(refused)
    data = _data_dir("guard-inline")
    assert (data / "seen.log").read_text() == f"rm -rf {victim}\n"
    lines = sorted(log.read_text().split())
    assert lines == sorted([f"default:{root}", f"inline:{data}", f"file:{root}"])


def test_a_plugin_hook_without_a_guard_reason_lets_other_calls_run(fake_api, project, tmp_path):
    root = _guard_plugin(tmp_path / "guard", tmp_path / "hooks.log")
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "touch ran"}, "toolu_t")]),
            text_turn("done"),
        ]
    )
    _go(fake_api, project, "--plugin-dir", str(root), "--allowedTools", "Bash(touch:*)")
    assert (project / "ran").is_file()


# -- F8: variables in skill bodies --------------------------------------------------------------


def test_skill_bodies_get_their_folder_the_session_id_and_the_plugin_root(
    fake_api, project, tmp_path
):
    plug = tmp_path / "plug"
    _write(plug / ".claude-plugin" / "plugin.json", json.dumps({"name": "pr"}))
    _write(
        plug / "skills" / "vars" / "SKILL.md",
        "---\ndescription: v\n---\n"
        "ROOT=${CLAUDE_PLUGIN_ROOT} DATA=${CLAUDE_PLUGIN_DATA} DIR=${CLAUDE_SKILL_DIR}\n",
    )
    _write(
        project / ".claude" / "skills" / "pv" / "SKILL.md",
        "---\ndescription: p\n---\nPDIR=${CLAUDE_SKILL_DIR} SID=${CLAUDE_SESSION_ID} $0\n",
    )
    _write(
        project / ".claude" / "skills" / "pb" / "SKILL.md",
        "---\ndescription: b\n---\n!`echo BANG-${CLAUDE_PLUGIN_ROOT}`\n",
    )
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Skill", {"skill": "pr:vars"}, "toolu_1"),
                    tool_use_block("Skill", {"skill": "pv", "args": "A"}, "toolu_2"),
                    tool_use_block("Skill", {"skill": "pb"}, "toolu_3"),
                ]
            ),
            text_turn("done"),
        ]
    )
    out = _go(fake_api, project, "--plugin-dir", str(plug))
    sent = json.dumps(fake_api.bodies()[1]["messages"])
    assert f"ROOT={plug} DATA={_data_dir('pr-inline')} DIR={plug / 'skills' / 'vars'}" in sent
    assert f"PDIR={project / '.claude' / 'skills' / 'pv'} SID={out['session_id']} A" in sent
    # A project skill is no plugin's: its `${CLAUDE_PLUGIN_ROOT}` stays as written, and the
    # `!` line holding it is not run (it would expand a variable of the environment), and the
    # skill stops there (ext-r4 F2: the tool's result is the refusal).
    assert "${CLAUDE_SKILL_DIR}" not in sent and "${CLAUDE_SESSION_ID}" not in sent
    refused = _tool_result(fake_api, "toolu_3")
    assert refused["is_error"] is True and "expands $CLAUDE_PLUGIN_ROOT" in str(refused["content"])


# -- F2: model aliases ---------------------------------------------------------------------------


def test_model_aliases_resolve_as_claude_code_sends_them(fake_api, project):
    _write(project / ".claude" / "commands" / "moda.md", "---\nmodel: haiku\n---\nuse haiku\n")
    _write(
        project / ".claude" / "skills" / "ms" / "SKILL.md",
        "---\ndescription: m\nmodel: sonnet\n---\nsonnet skill\n",
    )
    (project / ".git").mkdir()
    env = env_for(fake_api)
    fake_api.load([text_turn("a"), text_turn("b")])
    _result(lathe(["-p", "/moda", "--output-format", "json"], project, env))
    _result(lathe(["-p", "/ms", "--output-format", "json"], project, env))
    assert [b["model"] for b in fake_api.bodies()] == ["claude-haiku-5-5", "claude-sonnet-5-5"]


def test_a_skill_the_model_calls_keeps_the_session_model(fake_api, project):
    _write(
        project / ".claude" / "skills" / "ms" / "SKILL.md",
        "---\ndescription: m\nmodel: sonnet\n---\nsonnet skill\n",
    )
    fake_api.load(
        [turn_of([tool_use_block("Skill", {"skill": "ms"}, "toolu_s")]), text_turn("done")]
    )
    _go(fake_api, project, "--model", "claude-opus-4-1")
    assert [b["model"] for b in fake_api.bodies()] == ["claude-opus-4-1", "claude-opus-4-1"]


# -- F20: --agents in plain -p ----------------------------------------------------------------------


def test_agents_flag_defines_agent_types_in_print_mode(fake_api, project):
    agent = {"description": "from cli", "prompt": "CLI-AGENT-PROMPT", "model": "haiku"}
    call = {"subagent_type": "cli-agent", "description": "d", "prompt": "p"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", call, "toolu_a")]),
            text_turn("sub done"),
            text_turn("done"),
        ]
    )
    _go(fake_api, project, "--agents", json.dumps({"cli-agent": agent, "bad": {"prompt": "x"}}))
    first, sub = fake_api.bodies()[:2]
    agent_tool = next(t for t in first["tools"] if t["name"] == "Agent")
    assert "cli-agent: from cli" in agent_tool["description"]
    assert "CLI-AGENT-PROMPT" in json.dumps(sub["system"]) and sub["model"] == "claude-haiku-5-5"
    assert _tool_result(fake_api, "toolu_a").get("is_error") is not True


# -- F16: --add-dir skills and CLAUDE.md ---------------------------------------------------------


def test_add_dir_folders_bring_their_skills_and_with_the_variable_their_claude_md(
    fake_api, project, tmp_path
):
    extra = tmp_path / "extra"
    _write(extra / ".claude" / "skills" / "xs" / "SKILL.md", "---\ndescription: x\n---\nXS-BODY\n")
    _write(extra / "CLAUDE.md", "EXTRA-MEMORY\n")
    script = [turn_of([tool_use_block("Skill", {"skill": "xs"}, "toolu_x")]), text_turn("done")]
    fake_api.load(script)
    _go(fake_api, project, "--add-dir", str(extra))
    assert "XS-BODY" in json.dumps(fake_api.bodies()[1]["messages"])
    assert "EXTRA-MEMORY" not in json.dumps(fake_api.bodies()[0]["system"])
    fake_api.load([text_turn("done")])
    flag = {"CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD": "1"}
    _go(fake_api, project, "--add-dir", str(extra), **flag)
    assert "EXTRA-MEMORY" in json.dumps(fake_api.bodies()[-1]["system"])


# -- F10 / F14: an agent's permissionMode and skills ---------------------------------------------


def _agent(project: Path, name: str, front: str) -> None:
    _write(
        project / ".claude" / "agents" / f"{name}.md",
        f"---\nname: {name}\ndescription: d\n{front}\n---\n{name.upper()} PROMPT\n",
    )


def _agent_writes(fake_api, project: Path, agent: str, *args: str) -> Path:
    target = project / "SENT"
    call = {"subagent_type": agent, "description": "d", "prompt": "p"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", call, "toolu_a")]),
            turn_of([tool_use_block("Write", {"file_path": str(target), "content": "x"}, "w")]),
            text_turn("sub done"),
            text_turn("done"),
        ]
    )
    _go(fake_api, project, *args)
    return target


def test_an_agents_accept_edits_mode_lets_its_writes_run(fake_api, project):
    from app.permissions.trust import set_trusted

    # In a trusted folder: an untrusted one's checked-in agent widens nothing (attack round 8,
    # tests/unit/permissions/test_attack_r8_end_to_end.py).
    set_trusted(project)
    _agent(project, "acc", "permissionMode: acceptEdits")
    assert _agent_writes(fake_api, project, "acc").is_file()


def test_an_agent_cannot_give_itself_bypass_or_narrow_a_wider_parent(fake_api, project):
    _agent(project, "byp", "permissionMode: bypassPermissions")
    assert not _agent_writes(fake_api, project, "byp").is_file()
    # A parent in acceptEdits keeps its mode for the subagent: plan does not narrow it.
    _agent(project, "pl", "permissionMode: plan")
    assert _agent_writes(fake_api, project, "pl", "--permission-mode", "acceptEdits").is_file()


def test_an_agents_skills_are_preloaded_into_its_first_message(fake_api, project):
    _write(
        project / ".claude" / "skills" / "pre" / "SKILL.md",
        "---\ndescription: p\n---\nPRELOADED ${CLAUDE_SKILL_DIR}\n",
    )
    _agent(project, "runner", "skills: pre, missing")
    call = {"subagent_type": "runner", "description": "d", "prompt": "p"}
    fake_api.load(
        [turn_of([tool_use_block("Agent", call, "a")]), text_turn("sub"), text_turn("done")]
    )
    _go(fake_api, project)
    texts = [b["text"] for b in fake_api.bodies()[1]["messages"][0]["content"]]
    folder = project / ".claude" / "skills" / "pre"
    assert texts[:3] == [
        "p",
        "<command-message>pre</command-message>\n<command-name>pre</command-name>\n"
        "<skill-format>true</skill-format>",
        f"Base directory for this skill: {folder}\n\nPRELOADED {folder}\n",
    ]


# -- F9: context: fork ---------------------------------------------------------------------------


def test_a_fork_skill_runs_as_a_subagent_of_its_agent_type(fake_api, project):
    _write(
        project / ".claude" / "skills" / "fk" / "SKILL.md",
        "---\ndescription: f\ncontext: fork\nagent: Explore\n---\nFORKED $ARGUMENTS\n",
    )
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": "fk", "args": "now"}, "toolu_f")]),
            text_turn("fork result text"),
            text_turn("done"),
        ]
    )
    _go(fake_api, project)
    _, fork, after = fake_api.bodies()
    folder = project / ".claude" / "skills" / "fk"
    assert fork["messages"][0]["content"][0]["text"] == (
        f"Base directory for this skill: {folder}\n\nFORKED now\n"
    )
    fork_tools = {t["name"] for t in fork["tools"]}
    assert "Read" in fork_tools and not fork_tools & {"Write", "Edit", "Agent"}  # Explore's
    result = _tool_result(fake_api, "toolu_f")
    assert (
        result["content"] == 'Skill "fk" completed (forked execution).\n\nResult:\nfork result text'
    )
    assert "FORKED" not in json.dumps(after["messages"][-1])


# -- F13: the hooks' input -------------------------------------------------------------------------


def test_hook_input_fields_match_claude_codes(fake_api, project, tmp_path):
    log = tmp_path / "hk"
    log.mkdir()
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    hooks = {
        e: [
            {
                "hooks": [
                    {"type": "command", "command": f"cat >> {log}/{e}.json; echo >> {log}/{e}.json"}
                ]
            }
        ]
        for e in events
    }
    _write(project / ".claude" / "settings.json", json.dumps({"hooks": hooks}))
    _write(project / "f.txt", "hello\n")
    call = {"subagent_type": "general-purpose", "description": "d", "prompt": "p"}
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(project / "f.txt")}, "r")]),
            turn_of([tool_use_block("Agent", call, "a")]),
            text_turn("sub done"),
            text_turn("done"),
        ]
    )
    _go(fake_api, project)

    def read(event: str) -> list[dict]:
        return [json.loads(x) for x in (log / f"{event}.json").read_text().splitlines() if x]

    [start], [prompt], [end] = read("SessionStart"), read("UserPromptSubmit"), read("SessionEnd")
    assert "permission_mode" not in start and "prompt_id" not in start
    assert "permission_mode" not in end and end["reason"] == "other"
    prompt_id = prompt["prompt_id"]
    assert prompt_id and end["prompt_id"] == prompt_id
    read_post, agent_post = [p for p in read("PostToolUse") if "agent_id" not in p]
    assert read_post["prompt_id"] == prompt_id and isinstance(read_post["duration_ms"], int)
    assert read_post["tool_response"] == {
        "type": "text",
        "file": {
            "filePath": str(project / "f.txt"),
            "content": "hello",
            "numLines": 1,
            "startLine": 1,
            "totalLines": 1,
        },
    }
    response = agent_post["tool_response"]
    assert response["status"] == "completed" and response["prompt"] == "p"
    assert response["agentType"] == "general-purpose" and response["agentId"]
    assert response["content"] == [{"type": "text", "text": "sub done"}]
    assert {"totalDurationMs", "totalTokens", "totalToolUseCount"} <= set(response)
    [stop] = read("Stop")
    assert stop["background_tasks"] == [] and stop["session_crons"] == []
    assert "effort" not in stop  # lathe sent no effort, so it names none
