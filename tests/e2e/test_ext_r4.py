"""Issue 15, ext-fix5: the ext-r3 black-box findings, through the real `lathe -p`, the HTTP fake,
real hook processes and real files. Claude Code 2.1.332's behaviour for each was measured with
the report's reproductions (/work/attack/ext-r3-repro/FN) against the same fake (CHANGELOG,
Round 6).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe


def _home() -> Path:
    return Path(os.environ["HOME"])


def _write(path: Path, text: str, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return path


def _run(fake_api, project: Path, prompt: str, *args: str):
    (project / ".git").mkdir(exist_ok=True)
    cmd = ["-p", prompt, "--output-format", "json", *args]
    return lathe(cmd, project, env_for(fake_api))


def _ok(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _user_texts(body: dict) -> str:
    out = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
            continue
        out.extend(b["text"] for b in content if b.get("type") == "text")
    return "\n".join(out)


def _system(body: dict) -> str:
    system = body.get("system") or ""
    return system if isinstance(system, str) else "\n".join(b.get("text", "") for b in system)


def _script(path: Path, sentinel: Path) -> Path:
    return _write(path, f'#!/bin/sh\necho "RAN-$1" >> {sentinel}\necho ok-$1\n', 0o755)


# -- F1: ${CLAUDE_PLUGIN_ROOT} / ${CLAUDE_SKILL_DIR} inside allowed-tools ---------------------------


def test_a_plugin_commands_allowed_tools_name_its_script_through_the_plugin_root(
    fake_api, project, tmp_path
):
    sentinel = tmp_path / "sentinel"
    plug = tmp_path / "ar"
    _write(plug / ".claude-plugin" / "plugin.json", '{"name": "ar"}')
    _script(plug / "scripts" / "s.sh", sentinel)
    # ralph-wiggum's shape: a flow list, a fenced ```! block and a quoted `!` line.
    _write(
        plug / "commands" / "go.md",
        '---\nallowed-tools: ["Bash(${CLAUDE_PLUGIN_ROOT}/scripts/s.sh:*)"]\n---\n'
        '```!\n"${CLAUDE_PLUGIN_ROOT}/scripts/s.sh" v1\n```\nOut: !`${CLAUDE_PLUGIN_ROOT}/scripts/s.sh v2`\n',
    )
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "/ar:go", "--plugin-dir", str(plug)))
    assert sentinel.read_text().split() == ["RAN-v1", "RAN-v2"]
    assert "ok-v1" in _user_texts(fake_api.bodies()[0])


def test_a_skills_allowed_tools_name_its_script_through_the_skill_dir(fake_api, project, tmp_path):
    sentinel = tmp_path / "sentinel"
    skill = _home() / ".claude" / "skills" / "runner"
    _script(skill / "scripts" / "run.sh", sentinel)
    _write(
        skill / "SKILL.md",
        "---\ndescription: runner\nallowed-tools: Bash(${CLAUDE_SKILL_DIR}/scripts/run.sh:*)\n---\n"
        "Out: !`${CLAUDE_SKILL_DIR}/scripts/run.sh typed`\n",
    )
    fake_api.load(
        [
            # The model runs the script itself after the typed skill: the rule covers it too.
            turn_of([tool_use_block("Bash", {"command": f"{skill}/scripts/run.sh model"}, "t1")]),
            text_turn("done"),
        ]
    )
    _ok(_run(fake_api, project, "/runner"))
    assert sentinel.read_text().split() == ["RAN-typed", "RAN-model"]
    # The rule holds for that script only, for the skill's turn.
    assert _tool_result(fake_api, "t1").get("is_error") is not True


# -- F6: a hook handler's `if` ----------------------------------------------------------------------


def test_a_hook_handlers_if_rule_picks_the_calls_it_runs_for(fake_api, project, tmp_path):
    log = tmp_path / "hooks.log"
    hook = _write(tmp_path / "h.sh", f'#!/bin/sh\ncat > /dev/null\necho "$1" >> {log}\n', 0o755)

    def handler(tag: str, condition: str | None = None) -> dict:
        out = {"type": "command", "command": f"{hook} {tag}"}
        return out if condition is None else {**out, "if": condition}

    settings = {
        "permissions": {"allow": ["Bash(echo:*)", "Bash(git status)", "Read"]},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "",
                    "hooks": [
                        handler("commit", "Bash(git commit:*)"),
                        handler("echo", "Bash(echo:*)"),
                        handler("status", "Bash(git status)"),
                        handler("txt", "Read(*.txt)"),
                        handler("md", "Read(*.md)"),
                        handler("bad", "((not a rule"),
                        handler("always"),
                    ],
                }
            ],
            # Not a tool event: a handler with an `if` never runs there (Claude Code).
            "UserPromptSubmit": [{"hooks": [handler("ups-if", "Bash(echo:*)"), handler("ups")]}],
        },
    }
    _write(_home() / ".claude" / "settings.json", json.dumps(settings))
    _write(project / "a.txt", "x")
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "echo hi && git status"}, "t1")]),
            turn_of([tool_use_block("Read", {"file_path": str(project / "a.txt")}, "t2")]),
            text_turn("done"),
        ]
    )
    proc = _run(fake_api, project, "go")
    _ok(proc)
    assert "hooks.PreToolUse[0].hooks[5].if is not a permission rule, the hook never runs" in (
        proc.stderr
    )
    # A compound command matches a rule that one of its parts matches.
    assert sorted(log.read_text().split()) == sorted(
        ["ups", "echo", "status", "always", "txt", "always"]
    )


# -- F5: a UserPromptSubmit block in -p -------------------------------------------------------------


def test_a_prompt_hook_block_ends_print_mode_as_claude_code_does(fake_api, project, tmp_path):
    block = _write(
        tmp_path / "block.sh",
        '#!/bin/sh\ncat > /dev/null\necho \'{"decision": "block", "reason": "UPSBLOCK"}\'\n',
        0o755,
    )
    exit2 = _write(
        tmp_path / "e2.sh", "#!/bin/sh\ncat > /dev/null\necho UPSE2 >&2\nexit 2\n", 0o755
    )
    stop = _write(
        tmp_path / "stop.sh",
        '#!/bin/sh\ncat > /dev/null\necho \'{"continue": false, "stopReason": "STOPR"}\'\n',
        0o755,
    )
    settings = _home() / ".claude" / "settings.json"
    expected = {
        block: "UserPromptSubmit operation blocked by hook:\nUPSBLOCK\n\nOriginal prompt: please",
        exit2: f"UserPromptSubmit operation blocked by hook:\n[{exit2}]: UPSE2\n\n\n"
        "Original prompt: please",
        stop: "Operation stopped by hook: STOPR",
    }
    for script, text in expected.items():
        hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(script)}]}]}
        _write(settings, json.dumps({"hooks": hooks}))
        out = _ok(_run(fake_api, project, "please"))  # exit 0
        assert (out["subtype"], out["is_error"], out["result"]) == ("success", False, text)
    assert fake_api.bodies() == []  # the prompt never reached the model


# -- F2, F3, F13, F12: command and skill files --------------------------------------------------------


def test_command_folders_follow_symlinked_sub_folders_once(fake_api, project, tmp_path):
    team = tmp_path / "dotfiles" / "team"
    _write(team / "t.md", "TEAMCMD $ARGUMENTS\n")
    _write(team / "deeper" / "d.md", "DEEPCMD $ARGUMENTS\n")
    (team / "loop").symlink_to("..")  # a link back up is not walked
    user_commands = _home() / ".claude" / "commands"
    user_commands.mkdir(parents=True)
    (user_commands / "shared").symlink_to(team)
    project_commands = project / ".claude" / "commands"
    project_commands.mkdir(parents=True)
    (project_commands / "pshared").symlink_to(team)  # the same files: the user's copy only
    fake_api.load([text_turn("ok")] * 4)
    for prompt in ("/shared:t y", "/shared:deeper:d y", "/pshared:t y", "/shared:loop:team:t y"):
        _ok(_run(fake_api, project, prompt))
    sent = [_user_texts(b) for b in fake_api.bodies()]
    assert "TEAMCMD y" in sent[0] and "DEEPCMD y" in sent[1]
    assert sent[2].strip() == "/pshared:t y" and sent[3].strip() == "/shared:loop:team:t y"


def test_unclosed_and_long_closed_frontmatter_read_as_claude_code_reads_them(fake_api, project):
    commands = project / ".claude" / "commands"
    _write(commands / "unclosed.md", "---\ndescription: unclosed\nthis is body\n")
    _write(commands / "lc.md", "---\ndescription: long closer\n----------\nLONGCLOSE $ARGUMENTS\n")
    _write(
        project / ".claude" / "skills" / "usk" / "SKILL.md",
        "---\nname: usk\ndescription: never closed\nSKILLBODY\n",
    )
    _write(
        project / ".claude" / "agents" / "la.md",
        "---\nname: longagent\ndescription: long closer agent\ntools: Read\n"
        "--------------------\nLONGAGENT body\n",
    )
    call = {"subagent_type": "longagent", "prompt": "go", "description": "d"}
    fake_api.load(
        [
            text_turn("a"),
            text_turn("b"),
            turn_of([tool_use_block("Agent", call, "t1")]),
            text_turn("sub"),
            text_turn("done"),
        ]
    )
    for prompt in ("/unclosed a", "/lc b", "go"):
        proc = _run(fake_api, project, prompt)
        _ok(proc)
        assert "never closed" not in proc.stderr
    bodies = fake_api.bodies()
    assert "---\ndescription: unclosed\nthis is body\n\n\nARGUMENTS: a" in _user_texts(bodies[0])
    assert "-------\nLONGCLOSE b\n" in _user_texts(bodies[1])
    # The skill is listed by its first line, as Claude Code lists it.
    assert "- usk: ---" in _system(bodies[2]) + _user_texts(bodies[2])
    sub = next(b for b in bodies if "LONGAGENT body" in _system(b))
    assert [t["name"] for t in sub["tools"]] == ["Read"]


def test_a_skill_of_400_kb_loads(fake_api, project):
    _write(
        project / ".claude" / "skills" / "big" / "SKILL.md",
        "---\ndescription: big skill\n---\nBIG " + "x" * 400_000 + "\n",
    )
    _write(
        project / ".claude" / "skills" / "huge" / "SKILL.md",
        "---\ndescription: huge skill\n---\n" + "x" * 1_100_000 + "\n",
    )
    fake_api.load([turn_of([tool_use_block("Skill", {"skill": "big"}, "t1")]), text_turn("ok")])
    proc = _run(fake_api, project, "go")
    _ok(proc)
    assert "huge/SKILL.md skipped: larger than 1000000 bytes" in proc.stderr
    assert "BIG xxx" in _user_texts(fake_api.bodies()[1])


# -- F11: a disable-model-invocation command through the Skill tool --------------------------------


def test_the_skill_tool_refuses_a_user_only_command_in_claude_codes_words(fake_api, project):
    _write(
        project / ".claude" / "commands" / "nomodel.md",
        "---\ndescription: no model\ndisable-model-invocation: true\n---\nNOMODELBODY\n",
    )
    _write(project / ".claude" / "skills" / "other" / "SKILL.md", "---\ndescription: o\n---\nO\n")
    fake_api.load([turn_of([tool_use_block("Skill", {"skill": "nomodel"}, "t1")]), text_turn("k")])
    _ok(_run(fake_api, project, "go"))
    assert "nomodel" not in _system(fake_api.bodies()[0]) + _user_texts(fake_api.bodies()[0])
    refused = json.dumps(_tool_result(fake_api, "t1"))
    assert "Skill nomodel cannot be used with Skill tool due to disable-model-invocation" in refused
    assert "NOMODELBODY" not in json.dumps(fake_api.bodies())


# -- F7, F8, F9, F10: agents and plugins ----------------------------------------------------------------


def test_a_manifestless_plugin_and_its_unreadable_agent_load_as_claude_code_loads_them(
    fake_api, project, tmp_path, monkeypatch
):
    plug = tmp_path / "nomani"  # no .claude-plugin/plugin.json
    _write(plug / "commands" / "hello.md", "NOMANI CMD $ARGUMENTS\n")
    # plugin-dev's agent-creator shape: a description running on over unindented lines.
    _write(
        plug / "agents" / "creator.md",
        "---\nname: creator\ndescription: Use this agent when. Examples:\n\n<example>\nuser: x\n"
        '</example>\n\nmodel: sonnet\ntools: ["Write", "Read"]\n---\n\nCREATOR PROMPT\n',
    )
    call = {"subagent_type": "nomani:creator", "prompt": "go", "description": "d"}
    fake_api.load(
        [turn_of([tool_use_block("Agent", call, "t1")]), text_turn("sub"), text_turn("done")]
    )
    proc = _run(fake_api, project, "/nomani:hello x", "--plugin-dir", str(plug))
    _ok(proc)
    assert "loaded as nomani:creator with every tool" in proc.stderr
    bodies = fake_api.bodies()
    assert "NOMANI CMD x" in _user_texts(bodies[0])
    assert "- nomani:creator: Agent from nomani plugin" in json.dumps(bodies[0])
    sub = next(b for b in bodies if "CREATOR PROMPT" in _system(b))
    assert sub["model"] == bodies[0]["model"]  # its `model:` was not read: the session's
    assert _tool_result(fake_api, "t1").get("is_error") is not True


def test_an_agent_named_with_spaces_runs_and_its_project_memory_is_read(fake_api, project):
    agents = project / ".claude" / "agents"
    _write(agents / "sp.md", '---\nname: "spaced agent"\ndescription: has spaces\n---\nSPACED\n')
    _write(agents / "dbi.md", "---\nname: dbi\ndescription: db\nmemory: project\n---\nDBI BODY\n")
    _write(
        project / ".claude" / "agent-memory" / "dbi" / "MEMORY.md", "# Memory\n\n- AGENTMEMPROBE\n"
    )
    spaced = {"subagent_type": "spaced agent", "prompt": "go", "description": "d"}
    dbi = {"subagent_type": "dbi", "prompt": "go", "description": "d"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", spaced, "t1")]),
            text_turn("sub1"),
            turn_of([tool_use_block("Agent", dbi, "t2")]),
            text_turn("sub2"),
            text_turn("done"),
        ]
    )
    proc = _run(fake_api, project, "go")
    _ok(proc)
    assert "not an agent name" not in proc.stderr
    bodies = fake_api.bodies()
    assert "- spaced agent: has spaces" in json.dumps(bodies[0])
    assert any(_system(b).startswith("SPACED") for b in bodies)
    memory = next(_system(b) for b in bodies if _system(b).startswith("DBI BODY"))
    folder = project / ".claude" / "agent-memory" / "dbi"
    assert f"`{folder}/`" in memory and "## MEMORY.md\n\n# Memory\n\n- AGENTMEMPROBE" in memory
    for tid in ("t1", "t2"):
        assert _tool_result(fake_api, tid).get("is_error") is not True
