"""Issue 15, ext-fix6: round 3's leftovers and the ext-r4 black-box findings, through the real
`lathe -p`, the HTTP fake and real files. Claude Code 2.1.332's behaviour for each was measured
against the same fake (CHANGELOG, Round 7).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_ext_r4 import _ok, _run, _system, _write


def _home() -> Path:
    return Path(os.environ["HOME"])


def _tool_names(body: dict) -> list[str]:
    return [t.get("name") for t in body.get("tools", [])]


# -- a. an agent's `memory:` folder: guide, tools, writes without asking ------------------------


def _memory_agent(project: Path, scope: str, extra: str = "") -> None:
    _write(
        project / ".claude" / "agents" / "dbi.md",
        f"---\nname: dbi\ndescription: db\ntools: Read\n{extra}memory: {scope}\n---\nDBI BODY\n",
    )


def _agent_turns(*calls: tuple[str, dict]) -> list:
    start = {"subagent_type": "dbi", "prompt": "go", "description": "d"}
    turns = [turn_of([tool_use_block("Agent", start, "t0")])]
    turns += [turn_of([tool_use_block(name, inp, f"m{i}")]) for i, (name, inp) in enumerate(calls)]
    return [*turns, text_turn("sub done"), text_turn("done")]


def test_a_memory_agent_keeps_its_notes_without_asking_and_nothing_else(fake_api, project):
    _memory_agent(project, "project")
    folder = project / ".claude" / "agent-memory" / "dbi"
    index = _write(folder / "MEMORY.md", "# Memory\n\n- AGENTMEMPROBE\n")
    other = project / "other.txt"
    fake_api.load(
        _agent_turns(
            # MEMORY.md was in its prompt: no Read first (Claude Code 2.1.332 the same).
            ("Write", {"file_path": str(index), "content": "NEWMEM\n"}),
            ("Edit", {"file_path": str(index), "old_string": "NEWMEM", "new_string": "EDITED"}),
            ("Write", {"file_path": str(folder / "feedback_tests.md"), "content": "F\n"}),
            ("Write", {"file_path": str(other), "content": "X\n"}),
            (
                "Write",
                {
                    "file_path": str(project / ".claude" / "agent-memory" / "zzz" / "M.md"),
                    "content": "Z\n",
                },
            ),
        )
    )
    out = _ok(_run(fake_api, project, "go"))
    bodies = fake_api.bodies()
    sub = next(b for b in bodies if _system(b).startswith("DBI BODY"))
    # `tools: Read` and memory: Read, Write and Edit, as Claude Code lists them.
    assert sorted(_tool_names(sub)) == ["Edit", "Read", "Write"]
    prompt = _system(sub)
    assert f"`{folder}/`" in prompt and "MEMORY.md" in prompt
    assert "## MEMORY.md\n\n# Memory\n\n- AGENTMEMPROBE" in prompt
    assert "project scope" in prompt and "reference" in prompt  # the guide, not one line
    assert index.read_text() == "EDITED\n"
    assert (folder / "feedback_tests.md").read_text() == "F\n"
    for tid in ("m0", "m1", "m2"):
        assert _tool_result(fake_api, tid).get("is_error") is not True
    # Outside its own folder the rules apply as before: denied in -p.
    assert not other.exists()
    assert not (project / ".claude" / "agent-memory" / "zzz").exists()
    for tid in ("m3", "m4"):
        assert _tool_result(fake_api, tid).get("is_error") is True
    denied = {d["tool_input"]["file_path"] for d in out["permission_denials"]}
    assert str(other) in denied


def test_a_user_scope_memory_folder_is_made_and_its_disallowed_tools_still_hold(fake_api, project):
    _memory_agent(project, "user", "disallowedTools: Write\n")
    folder = _home() / ".claude" / "agent-memory" / "dbi"
    fake_api.load(_agent_turns())
    _ok(_run(fake_api, project, "go"))
    assert folder.is_dir()  # made when the subagent started: its prompt says it exists
    sub = next(b for b in fake_api.bodies() if _system(b).startswith("DBI BODY"))
    assert sorted(_tool_names(sub)) == ["Edit", "Read"]
    prompt = _system(sub)
    assert f"`{folder}/`" in prompt and "user scope" in prompt
    assert "Your MEMORY.md is empty" in prompt


def test_a_memory_folder_that_links_elsewhere_gets_no_free_writes(fake_api, project, tmp_path):
    _memory_agent(project, "project")
    hooks = project / ".git" / "hooks"
    hooks.mkdir(parents=True)
    folder = project / ".claude" / "agent-memory" / "dbi"
    folder.parent.mkdir(parents=True)
    folder.symlink_to(hooks)
    fake_api.load(
        _agent_turns(("Write", {"file_path": str(folder / "pre-commit"), "content": "#!/bin/sh\n"}))
    )
    _ok(_run(fake_api, project, "go"))
    assert not (hooks / "pre-commit").exists()
    assert _tool_result(fake_api, "m0").get("is_error") is True


# -- F1: `$ARGUMENTS[N]` past the last argument stays as written ---------------------------------


def test_f1_an_argument_index_past_the_last_stays_as_written(fake_api, project):
    _write(project / ".claude" / "commands" / "idx.md", "I0=$ARGUMENTS[0] I1=$ARGUMENTS[1] D1=$1\n")
    fake_api.load([text_turn("ok"), text_turn("ok")])
    _ok(_run(fake_api, project, "/idx a"))
    _ok(_run(fake_api, project, "/idx"))
    first, second = (b["messages"][0]["content"] for b in fake_api.bodies())
    assert first[1]["text"] == "I0=a I1=$ARGUMENTS[1] D1=$1\n"
    assert second[1]["text"] == "I0=$ARGUMENTS[0] I1=$ARGUMENTS[1] D1=$1\n"
    # No arguments: no <command-args> tag (Claude Code 2.1.332 leaves it out).
    assert (
        second[0]["text"]
        == "<command-message>idx</command-message>\n<command-name>/idx</command-name>"
    )


# -- F2 and c: a `!` line refused or failed stops the command; the refusal is a denial -----------


def test_f2_a_failing_bang_line_stops_the_command_before_any_request(fake_api, project):
    _write(
        project / ".claude" / "commands" / "fail.md",
        "Before\nOut: !`ls nonexistent-zz`\nLater: !`echo NEVER-RAN > ran.txt`\nAfter $ARGUMENTS\n",
    )
    fake_api.load([text_turn("never sent")])
    out = _ok(_run(fake_api, project, "/fail x"))
    assert fake_api.bodies() == []
    assert out["subtype"] == "success" and out["is_error"] is False and out["num_turns"] == 0
    assert out["result"].startswith(
        'Shell command failed for pattern "!`ls nonexistent-zz`": [stderr]\nls: cannot access'
    )
    assert out["permission_denials"] == []
    assert not (project / "ran.txt").exists()


def test_c_a_refused_bang_line_is_listed_in_permission_denials(fake_api, project):
    _write(project / ".claude" / "commands" / "deny.md", "Out: !`touch zz-made`\nAfter\n")
    fake_api.load([text_turn("never sent")])
    out = _ok(_run(fake_api, project, "/deny"))
    assert fake_api.bodies() == []
    assert out["result"].startswith(
        'Shell command permission check failed for pattern "!`touch zz-made`": '
    )
    assert [d["tool_name"] for d in out["permission_denials"]] == ["Bash"]
    assert out["permission_denials"][0]["tool_input"]["command"] == "touch zz-made"
    assert not (project / "zz-made").exists()


# -- F9: the UserPromptSubmit hooks run before a command's `!` lines -----------------------------


def test_f9_a_blocking_prompt_hook_runs_before_any_bang_line(fake_api, project, tmp_path):
    log = tmp_path / "order.log"
    hook = f"cat > {tmp_path}/ups.json; echo hook >> {log}; echo 'no commands today' >&2; exit 2"
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}}
    _write(_home() / ".claude" / "settings.json", json.dumps(settings))
    _write(
        _home() / ".claude" / "commands" / "bang.md",
        f"---\nallowed-tools: Bash(touch:*)\n---\nX: !`touch {tmp_path}/bang-ran.txt`\n",
    )
    _write(
        _home() / ".claude" / "skills" / "bsk" / "SKILL.md",
        f"---\ndescription: d\nallowed-tools: Bash(touch:*)\n---\n!`touch {tmp_path}/skill-ran.txt`\n",
    )
    fake_api.load([text_turn("never"), text_turn("never")])
    for prompt in ("/bang", "/bsk"):
        out = _ok(_run(fake_api, project, prompt))
        assert out["result"].startswith("UserPromptSubmit operation blocked by hook:")
        assert json.loads((tmp_path / "ups.json").read_text())["prompt"] == prompt
    assert fake_api.bodies() == []
    assert not (tmp_path / "bang-ran.txt").exists() and not (tmp_path / "skill-ran.txt").exists()


def test_f9_an_allowing_prompt_hook_runs_first_and_its_context_still_comes(fake_api, project):
    log = project / "order.log"
    hook = f"echo hook-ran >> {log}; echo HOOKCTX"
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}}
    _write(_home() / ".claude" / "settings.json", json.dumps(settings))
    # The `!` line reads what the hook wrote: it ran after the hook.
    _write(_home() / ".claude" / "commands" / "bang.md", "X: !`cat order.log`\n")
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "/bang"))
    sent = fake_api.bodies()[0]["messages"]
    assert sent[0]["content"][1]["text"] == "X: hook-ran\n"
    assert "HOOKCTX" in json.dumps(sent)


# -- F7, F11: model aliases wherever a model is named --------------------------------------------


def test_f7_the_sessions_model_alias_is_sent_as_its_id(fake_api, project):
    _write(_home() / ".claude" / "settings.json", json.dumps({"model": "haiku"}))
    fake_api.load([text_turn("ok"), text_turn("ok"), text_turn("ok")])
    _ok(_run(fake_api, project, "hi"))
    _ok(_run(fake_api, project, "hi", "--model", "sonnet[1m]"))
    _write(_home() / ".claude" / "settings.json", json.dumps({"model": "OPUS"}))
    _ok(_run(fake_api, project, "hi"))
    assert [b["model"] for b in fake_api.bodies()] == [
        "claude-haiku-5-5",
        "claude-sonnet-5-5",
        "claude-opus-5-5",
    ]


def test_f11_inherit_and_1m_forms_in_commands_skills_and_agents(fake_api, project):
    commands = project / ".claude" / "commands"
    _write(commands / "m1.md", "---\nmodel: sonnet[1m]\n---\nM1\n")
    _write(commands / "m2.md", "---\nmodel: inherit\n---\nM2\n")
    _write(project / ".claude" / "skills" / "s1m" / "SKILL.md", "---\nmodel: opus[1m]\n---\nS\n")
    _write(
        project / ".claude" / "agents" / "big.md",
        "---\nname: big\ndescription: b\nmodel: sonnet[1m]\n---\nBIG\n",
    )
    big = {"subagent_type": "big", "prompt": "go", "description": "d"}
    fake_api.load(
        [
            text_turn("ok"),
            text_turn("ok"),
            text_turn("ok"),
            turn_of([tool_use_block("Agent", big, "t1")]),
            text_turn("sub"),
            text_turn("done"),
        ]
    )
    session = ("--model", "claude-opus-4-1")
    for prompt in ("/m1", "/m2", "/s1m", "go"):
        _ok(_run(fake_api, project, prompt, *session))
    models = [b["model"] for b in fake_api.bodies()]
    assert models[:3] == ["claude-sonnet-5-5", "claude-opus-4-1", "claude-opus-5-5"]
    sub = next(b for b in fake_api.bodies() if _system(b).startswith("BIG"))
    assert sub["model"] == "claude-sonnet-5-5"


# -- F13: `$CLAUDE_CONFIG_DIR/settings.json` is the user's Claude Code settings ------------------


def test_f13_the_config_dirs_settings_hold_and_the_homes_do_not(fake_api, project, tmp_path):
    from tests.e2e.test_headless_cli import env_for, lathe

    cfg = tmp_path / "cfg"
    _write(cfg / "settings.json", json.dumps({"permissions": {"deny": ["Bash(touch:*)"]}}))
    # Read no more once CLAUDE_CONFIG_DIR names another folder (Claude Code 2.1.332 ignores it).
    _write(_home() / ".claude" / "settings.json", json.dumps({"model": "haiku"}))
    touch = {"command": "touch denied-by-cfg.txt", "description": "t"}
    fake_api.load([turn_of([tool_use_block("Bash", touch, "b1")]), text_turn("done")])
    (project / ".git").mkdir()
    args = ["-p", "hi", "--output-format", "json", "--allowedTools", "Bash(touch:*)"]
    proc = lathe(args, project, env_for(fake_api, CLAUDE_CONFIG_DIR=str(cfg)))
    out = _ok(proc)
    assert not (project / "denied-by-cfg.txt").exists()
    assert [d["tool_name"] for d in out["permission_denials"]] == ["Bash"]
    assert fake_api.bodies()[0]["model"] != "claude-haiku-5-5"


# -- F10: a closer of dashes followed by text closes the frontmatter ----------------------------


def test_f10_dash_closers_with_text_close_in_commands_agents_and_skills(fake_api, project):
    claude = project / ".claude"
    _write(
        claude / "commands" / "dash.md",
        "---\ndescription: DASHCMD\n------ trailing words\nB $ARGUMENTS\n",
    )
    _write(claude / "commands" / "dash2.md", "---\ndescription: DASH2\n--- # comment\nDASH2BODY\n")
    _write(
        claude / "agents" / "d.md", "---\nname: dashagent\ndescription: DASHAGENT\n--- # end\nP\n"
    )
    _write(claude / "skills" / "dsk" / "SKILL.md", "---\ndescription: DASHSKILL\n---# x\nS\n")
    fake_api.load([text_turn("ok"), text_turn("ok")])
    _ok(_run(fake_api, project, "/dash a"))
    _ok(_run(fake_api, project, "/dash2"))
    first, second = fake_api.bodies()
    assert first["messages"][0]["content"][1]["text"] == "--- trailing words\nB a\n"
    assert second["messages"][0]["content"][1]["text"] == "# comment\nDASH2BODY\n"
    sent = json.dumps(first)
    assert "- dashagent: DASHAGENT" in sent and "- dsk: DASHSKILL" in sent


# -- F6: the hand-back names only the tools the subagent had -------------------------------------


def test_f6_a_tool_the_subagent_lacks_is_not_among_the_tools_it_used(fake_api, project):
    _write(
        project / ".claude" / "agents" / "r.md",
        "---\nname: reader\ndescription: r\ntools: Read, Glob\n---\nR\n",
    )
    _write(project / "pub.txt", "pub\n")
    start = {"subagent_type": "reader", "prompt": "go", "description": "d"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", start, "t0")]),
            turn_of([tool_use_block("Bash", {"command": "ls"}, "b1")]),
            turn_of([tool_use_block("Read", {"file_path": str(project / "pub.txt")}, "r1")]),
            text_turn("SUBDONE"),
            text_turn("done"),
        ]
    )
    _ok(_run(fake_api, project, "go"))
    handback = json.dumps(_tool_result(fake_api, "t0"))
    assert "<tools-used-before-summary>Read</tools-used-before-summary>" in handback


# -- F8: a long CLAUDE.md is sent whole, with a warning ------------------------------------------


def test_f8_a_long_claude_md_is_sent_whole_and_said_to_be_large(fake_api, project):
    body = "HUGESTART\n" + "filler line of project notes\n" * 1600 + "HUGEEND: run make check\n"
    _write(project / "CLAUDE.md", body)
    fake_api.load([text_turn("ok")])
    proc = _run(fake_api, project, "hi")
    _ok(proc)
    sent = json.dumps(fake_api.bodies()[0])
    assert "HUGEEND: run make check" in sent and "is longer than shown" not in sent
    assert (
        "will impact performance" in proc.stderr and "sent whole with every request" in proc.stderr
    )


# -- F12: a skill wins over a custom command of its name -----------------------------------------


def test_f12_a_skill_wins_over_a_command_of_the_same_name(fake_api, project, tmp_path):
    claude = project / ".claude"
    _write(claude / "commands" / "cmdclash.md", "CMDCLASHBODY\n")
    _write(
        claude / "skills" / "cmdclash" / "SKILL.md", "---\ndescription: s\n---\nSKILLCLASHBODY\n"
    )
    _write(claude / "commands" / "dup.md", "PROJECT-VERSION\n")
    _write(
        _home() / ".claude" / "skills" / "dup" / "SKILL.md",
        "---\ndescription: u\n---\nUSERSKILLBODY\n",
    )
    # Inside one plugin the command keeps its name (Claude Code runs the command there).
    plug = tmp_path / "pl"
    _write(plug / ".claude-plugin" / "plugin.json", json.dumps({"name": "pl"}))
    _write(plug / "commands" / "scan.md", "PLUGIN-COMMAND\n")
    _write(plug / "skills" / "scan" / "SKILL.md", "---\ndescription: p\n---\nPLUGIN-SKILL\n")
    fake_api.load([text_turn("ok"), text_turn("ok"), text_turn("ok")])
    for prompt in ("/cmdclash", "/dup", "/pl:scan"):
        proc = _run(fake_api, project, prompt, "--plugin-dir", str(plug))
        _ok(proc)
        assert "is not a slash command" not in proc.stderr
    sent = [json.dumps(b["messages"]) for b in fake_api.bodies()]
    assert "SKILLCLASHBODY" in sent[0] and "CMDCLASHBODY" not in sent[0]
    assert "USERSKILLBODY" in sent[1] and "PROJECT-VERSION" not in sent[1]
    assert "PLUGIN-COMMAND" in sent[2] and "PLUGIN-SKILL" not in sent[2]


# -- F19: --setting-sources holds in plain `-p` --------------------------------------------------


def test_f19_setting_sources_user_leaves_the_projects_hooks_and_rules_out(fake_api, project):
    hook = {"type": "command", "command": f"touch {project}/project-hook-ran"}
    settings = {
        "hooks": {"UserPromptSubmit": [{"hooks": [hook]}]},
        "permissions": {"deny": ["Bash(echo:*)"]},
    }
    _write(project / ".claude" / "settings.json", json.dumps(settings))
    echo = {"command": "echo hi", "description": "e"}
    fake_api.load([turn_of([tool_use_block("Bash", echo, "b1")]), text_turn("done")])
    out = _ok(_run(fake_api, project, "hi", "--setting-sources", "user"))
    assert not (project / "project-hook-ran").exists()
    assert out["permission_denials"] == []  # the project's deny rule was not read
    assert _tool_result(fake_api, "b1").get("is_error") is not True


# -- F15: an agent file's own `hooks:` guard its subagent only -----------------------------------


def test_f15_an_agents_hooks_run_for_its_subagent_only(fake_api, project):
    log = project / "ahook.log"
    _write(
        _home() / ".claude" / "agents" / "hk.md",
        "---\nname: hk\ndescription: guarded\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
        "      hooks:\n        - type: command\n"
        f'          command: "cat >/dev/null; echo pre >> {log}; echo no bash here >&2; exit 2"\n'
        "  Stop:\n    - hooks:\n        - type: command\n"
        f'          command: "cat >/dev/null; echo stop >> {log}"\n---\nHK\n',
    )
    start = {"subagent_type": "hk", "prompt": "go", "description": "d"}
    echo = {"command": "echo sub > sub.txt", "description": "e"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", start, "t0")]),
            turn_of([tool_use_block("Bash", echo, "b1")]),
            text_turn("sub done"),
            turn_of([tool_use_block("Bash", {"command": "echo main", "description": "m"}, "b2")]),
            text_turn("done"),
        ]
    )
    _ok(_run(fake_api, project, "go", "--allowedTools", "Bash"))
    assert log.read_text().split() == ["pre", "stop"]  # not for the main session's Bash
    blocked = _tool_result(fake_api, "b1")
    assert blocked["is_error"] is True and "no bash here" in json.dumps(blocked)
    assert not (project / "sub.txt").exists()
    assert _tool_result(fake_api, "b2").get("is_error") is not True


def test_f15_an_agent_whose_hooks_do_not_read_is_skipped_with_the_reason(fake_api, project):
    _write(
        project / ".claude" / "agents" / "bad.md",
        "---\nname: bad\ndescription: b\nhooks:\n  PreToolUse: |\n    x\n---\nB\n",
    )
    fake_api.load([text_turn("ok")])
    proc = _run(fake_api, project, "hi")
    _ok(proc)
    assert "bad.md skipped: hooks:" in proc.stderr


# -- F16: an agent's `maxTurns` ends its subagent ------------------------------------------------


def test_f16_max_turns_stops_the_subagent_and_the_hand_back_says_so(fake_api, project):
    _write(
        _home() / ".claude" / "agents" / "short.md",
        "---\nname: short\ndescription: s\nmaxTurns: 2\n---\nSHORT\n",
    )
    start = {"subagent_type": "short", "prompt": "go", "description": "d"}
    echo = [{"command": f"echo t{i}", "description": "e"} for i in range(1, 4)]
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", start, "t0")]),
            turn_of([tool_use_block("Bash", echo[0], "b1")]),
            turn_of([tool_use_block("Bash", echo[1], "b2")]),
            text_turn("main goes on"),
        ]
    )
    _ok(_run(fake_api, project, "go"))
    bodies = fake_api.bodies()
    assert sum(1 for b in bodies if _system(b).startswith("SHORT")) == 2
    result = _tool_result(fake_api, "t0")
    assert result.get("is_error") is not True
    assert "stopped at its 2-turn limit before finishing" in json.dumps(result)


# -- F18: an agent whose tools resolve to nothing is refused -------------------------------------


def test_f18_an_agent_whose_tools_resolve_to_nothing_is_refused(fake_api, project):
    agents = _home() / ".claude" / "agents"
    _write(agents / "c.md", "---\nname: lowertools\ndescription: c\ntools: read, bash\n---\nLOW\n")
    _write(agents / "n.md", "---\nname: none\ndescription: n\ntools: []\n---\nNONE\n")
    low = {"subagent_type": "lowertools", "prompt": "go", "description": "d"}
    none = {"subagent_type": "none", "prompt": "go", "description": "d"}
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", low, "t1")]),
            turn_of([tool_use_block("Agent", none, "t2")]),
            text_turn("tool-less answer"),
            text_turn("done"),
        ]
    )
    _ok(_run(fake_api, project, "go"))
    refused = _tool_result(fake_api, "t1")
    assert refused["is_error"] is True
    assert "Agent 'lowertools' would be spawned with zero tools — refusing" in json.dumps(
        refused, ensure_ascii=False
    )
    assert not any(_system(b).startswith("LOW") for b in fake_api.bodies())
    assert _tool_result(fake_api, "t2").get("is_error") is not True  # `tools: []` on purpose


# -- F17: when_to_use in the listing, named arguments --------------------------------------------


def test_f17_when_to_use_is_listed_and_named_arguments_are_filled(fake_api, project):
    skills = project / ".claude" / "skills"
    _write(
        skills / "wtu" / "SKILL.md",
        "---\ndescription: WTUDESC base\nwhen_to_use: WHENTOUSE banana\n---\nW\n",
    )
    _write(
        skills / "named" / "SKILL.md",
        "---\ndescription: n\narguments: [target, mode]\n---\nTARGET=$target MODE=$mode X=$other ALL=$ARGUMENTS\n",
    )
    fake_api.load([text_turn("ok"), text_turn("ok")])
    _ok(_run(fake_api, project, "/named prod fast"))
    _ok(_run(fake_api, project, "/named prod"))
    first, second = fake_api.bodies()
    assert "- wtu: WTUDESC base - WHENTOUSE banana" in json.dumps(first)
    assert first["messages"][0]["content"][1]["text"].endswith(
        "TARGET=prod MODE=fast X=$other ALL=prod fast\n"
    )
    # A name without its argument is empty (Claude Code 2.1.332: `TARGET=prod MODE= ALL=prod`).
    assert second["messages"][0]["content"][1]["text"].endswith(
        "TARGET=prod MODE= X=$other ALL=prod\n"
    )


# -- F5: the skill listing keeps to a budget -----------------------------------------------------


def test_f5_the_skill_listing_keeps_to_its_budget_and_names_every_skill(fake_api, project):
    for i in range(300):
        _write(
            _home() / ".claude" / "skills" / f"sk{i:03d}" / "SKILL.md",
            f"---\ndescription: skill {i} " + "does a thing carefully " * 13 + "\n---\nB\n",
        )
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "hi"))
    system = _system(fake_api.bodies()[0])
    listing = system[
        system.index("The following skills are available for use with the Skill tool:") :
    ]
    entries = [line for line in listing.split("\n") if line.startswith("- sk")]
    assert len(entries) == 300  # every skill named
    assert sum(len(e) + 1 for e in entries) <= 30_000
    assert entries[0].startswith("- sk000: skill 0") and entries[-1] == "- sk299"


# -- b: symlinked sub-folders of agents folders --------------------------------------------------


def test_b_agents_folders_follow_symlinked_sub_folders_without_loops(fake_api, project, tmp_path):
    team = tmp_path / "team" / "deep"
    _write(team / "la.md", "---\nname: linkedagent\ndescription: LINKEDAGENTDESC\n---\nL\n")
    agents = _home() / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "shared").symlink_to(tmp_path / "team")
    (agents / "loop").symlink_to(agents)  # a link back up: not walked again
    start = {"subagent_type": "linkedagent", "prompt": "go", "description": "d"}
    fake_api.load(
        [turn_of([tool_use_block("Agent", start, "t1")]), text_turn("sub"), text_turn("done")]
    )
    _ok(_run(fake_api, project, "go"))
    first = json.dumps(fake_api.bodies()[0])
    assert first.count("- linkedagent: LINKEDAGENTDESC") == 1
    assert any(
        _system(b).startswith("L") and "linkedagent" not in _system(b) for b in fake_api.bodies()
    )
    assert _tool_result(fake_api, "t1").get("is_error") is not True


# -- F4: a plugin manifest's own commands / skills / agents paths --------------------------------


def test_f4_a_plugin_manifests_component_paths_are_read(fake_api, project, tmp_path):
    plug = tmp_path / "mp"
    outside = _write(tmp_path / "elsewhere.md", "---\nname: out\ndescription: OUTSIDE\n---\nO\n")
    manifest = {
        "name": "mp",
        "commands": ["./cmds/hello.md"],
        "skills": "./myskills/",
        # VoltAgent's marketplace shape: the agent files at the plugin's root.
        "agents": ["./api-designer.md", "../elsewhere.md"],
    }
    _write(plug / ".claude-plugin" / "plugin.json", json.dumps(manifest))
    _write(plug / "cmds" / "hello.md", "MPHELLO body $ARGUMENTS\n")
    _write(plug / "myskills" / "sk1" / "SKILL.md", "---\ndescription: MPSKILL desc\n---\nS\n")
    _write(
        plug / "api-designer.md",
        "---\nname: api-designer\ndescription: APIDESIGNER\ntools: Read\n---\nAPI PROMPT\n",
    )
    start = {"subagent_type": "mp:api-designer", "prompt": "go", "description": "d"}
    fake_api.load(
        [turn_of([tool_use_block("Agent", start, "t1")]), text_turn("sub"), text_turn("done")]
    )
    proc = _run(fake_api, project, "/mp:hello X", "--plugin-dir", str(plug))
    _ok(proc)
    first = fake_api.bodies()[0]
    assert first["messages"][0]["content"][1]["text"] == "MPHELLO body X\n"
    sent = json.dumps(first)
    assert "- mp:sk1: MPSKILL desc" in sent and "mp:api-designer: APIDESIGNER" in sent
    assert "OUTSIDE" not in sent and "is outside the plugin" in proc.stderr
    sub = next(b for b in fake_api.bodies() if _system(b).startswith("API PROMPT"))
    assert _tool_names(sub) == ["Read"]
    assert outside.exists()


# -- F3: InstructionsLoaded and PostToolBatch ----------------------------------------------------


def test_f3_instructions_loaded_and_post_tool_batch_fire(fake_api, project, tmp_path):
    _write(project / "CLAUDE.md", "MEM\n")

    def logger(event: str, out: str = "") -> dict:
        return {
            "type": "command",
            "command": f"cat >> {tmp_path}/{event}.json; echo >> {tmp_path}/{event}.json{out}",
        }

    batch_ctx = '; echo \'{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"BATCHCTX"}}\''
    settings = {
        "hooks": {
            "InstructionsLoaded": [{"hooks": [logger("il")]}],
            "PostToolBatch": [{"hooks": [logger("ptb", batch_ctx)]}],
        }
    }
    _write(project / ".claude" / "settings.json", json.dumps(settings))
    ls = {"command": "ls", "description": "l"}
    read = {"file_path": str(project / "CLAUDE.md")}
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", ls, "b1"), tool_use_block("Read", read, "r1")]),
            text_turn("done"),
        ]
    )
    proc = _run(fake_api, project, "hi")
    _ok(proc)
    assert "unknown hook event" not in proc.stderr
    loaded = json.loads((tmp_path / "il.json").read_text().splitlines()[0])
    assert loaded["file_path"] == str(project / "CLAUDE.md")
    assert loaded["memory_type"] == "Project" and loaded["load_reason"] == "session_start"
    batches = [json.loads(x) for x in (tmp_path / "ptb.json").read_text().splitlines() if x]
    assert len(batches) == 1
    calls = batches[0]["tool_calls"]
    assert [c["tool_use_id"] for c in calls] == ["b1", "r1"]
    assert "CLAUDE.md" in calls[0]["tool_response"]
    assert "PostToolBatch hook additional context: BATCHCTX" in json.dumps(fake_api.bodies()[1])
