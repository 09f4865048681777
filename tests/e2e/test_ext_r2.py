"""Issue 15, second round (ext-fix2), through the real `lathe -p`, the HTTP fake and real hook and
MCP server processes: model-only skills, plugin MCP servers, hooks' tool_input as sent, the
built-in agents' tools, fenced ```! blocks and permission_denials for refusals at validation.
Claude Code 2.1.332's behaviour for each was measured against the same fake (CHANGELOG, Round 5).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe

ROOT = Path(__file__).resolve().parents[2]
DUMP_SERVER = ROOT / "tests" / "e2e" / "servers" / "env_dump_server.py"


def _skills(project: Path) -> None:
    (project / ".git").mkdir(exist_ok=True)
    base = project / ".claude" / "skills"
    for name, front, body in (
        ("noinv", "user-invocable: false", "NOINV-BODY"),
        ("dmi", "disable-model-invocation: true", "DMI-BODY $ARGUMENTS"),
    ):
        (base / name).mkdir(parents=True)
        (base / name / "SKILL.md").write_text(f"---\ndescription: d\n{front}\n---\n{body}\n")


def _result(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# -- 1. user-invocable: false and disable-model-invocation -----------------------------------------


def test_a_model_only_skill_typed_as_slash_is_refused_locally(fake_api, project):
    _skills(project)
    fake_api.load([text_turn("never")])
    out = _result(
        lathe(["-p", "/noinv some args", "--output-format", "json"], project, env_for(fake_api))
    )
    # Claude Code 2.1.332's words, and no request at all.
    assert out["result"] == (
        "This skill can only be invoked by Claude, not directly by users. "
        'Ask Claude to use the "noinv" skill for you.'
    )
    assert out["is_error"] is False and out["num_turns"] == 0
    assert fake_api.bodies() == []


def test_the_model_uses_a_model_only_skill_and_is_refused_a_user_only_one(fake_api, project):
    _skills(project)
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Skill", {"skill": "noinv"}, "toolu_n"),
                    tool_use_block("Skill", {"skill": "dmi"}, "toolu_d"),
                ]
            ),
            text_turn("done"),
        ]
    )
    out = _result(lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api)))
    assert out["result"] == "done"
    system = "".join(b["text"] for b in fake_api.bodies()[0]["system"])
    assert "- noinv: d" in system and "- dmi" not in system
    assert _tool_result(fake_api, "toolu_n").get("is_error") is not True
    assert "NOINV-BODY" in json.dumps(fake_api.bodies()[1]["messages"][-1])
    refused = _tool_result(fake_api, "toolu_d")
    assert refused["is_error"] is True and "disable-model-invocation" in json.dumps(refused)


def test_the_user_types_a_user_only_skill(fake_api, project):
    _skills(project)
    fake_api.load([text_turn("ok")])
    _result(lathe(["-p", "/dmi Bob", "--output-format", "json"], project, env_for(fake_api)))
    assert "DMI-BODY Bob" in json.dumps(fake_api.bodies()[0]["messages"])


# -- 2. plugin MCP servers --------------------------------------------------------------------------


def _mcp_plugin(root: Path, inline: bool) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    server = {
        "command": sys.executable,
        "args": ["${CLAUDE_PLUGIN_ROOT}/srv.py", "${CLAUDE_PLUGIN_ROOT}/env.json"],
    }
    manifest: dict = {"name": "kit", "version": "1.0.0"}
    (root / "srv.py").write_text(DUMP_SERVER.read_text())
    if inline:
        manifest["mcpServers"] = {"inl": server}
    else:
        # The plugin docs' shape: the servers' table alone, no "mcpServers" key.
        (root / ".mcp.json").write_text(json.dumps({"dump": server}))
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    return root


def _run_plugin_tool(fake_api, project, root: Path, tool: str):
    (project / ".git").mkdir(exist_ok=True)
    fake_api.load([turn_of([tool_use_block(tool, {}, "toolu_m")]), text_turn("done")])
    args = ["-p", "go", "--output-format", "json", "--plugin-dir", str(root)]
    return _result(lathe([*args, "--allowedTools", tool], project, env_for(fake_api)))


def test_a_plugins_mcp_json_servers_start_with_claude_codes_tool_names(fake_api, project, tmp_path):
    root = _mcp_plugin(tmp_path / "plug", inline=False)
    _run_plugin_tool(fake_api, project, root, "mcp__plugin_kit_dump__hi")
    names = [t["name"] for t in fake_api.bodies()[0]["tools"]]
    assert "mcp__plugin_kit_dump__hi" in names
    assert _tool_result(fake_api, "toolu_m").get("is_error") is not True
    assert "hi" in json.dumps(_tool_result(fake_api, "toolu_m")["content"])
    # ${CLAUDE_PLUGIN_ROOT} expanded in the args, and set for the server, as Claude Code does.
    started = json.loads((root / "env.json").read_text())
    assert started["CLAUDE_PLUGIN_ROOT"] == str(root.resolve())
    # ...and its data folder, made before it starts (Claude Code: plugins/data/<name>-inline).
    data = Path(os.environ["HOME"]) / ".claude" / "plugins" / "data" / "kit-inline"
    assert started["CLAUDE_PLUGIN_DATA"] == str(data) and data.is_dir()


def test_a_manifests_inline_mcp_servers_start_too(fake_api, project, tmp_path):
    root = _mcp_plugin(tmp_path / "plug", inline=True)
    _run_plugin_tool(fake_api, project, root, "mcp__plugin_kit_inl__hi")
    assert _tool_result(fake_api, "toolu_m").get("is_error") is not True
    assert (root / "env.json").is_file()


def test_a_plugin_mcp_tool_still_obeys_the_rules(fake_api, project, tmp_path):
    root = _mcp_plugin(tmp_path / "plug", inline=False)
    (project / ".git").mkdir()
    fake_api.load(
        [turn_of([tool_use_block("mcp__plugin_kit_dump__hi", {}, "toolu_m")]), text_turn("done")]
    )
    out = _result(
        lathe(
            ["-p", "go", "--output-format", "json", "--plugin-dir", str(root)],
            project,
            env_for(fake_api),
        )
    )
    assert _tool_result(fake_api, "toolu_m")["is_error"] is True  # -p asks nobody: denied
    assert [d["tool_name"] for d in out["permission_denials"]] == ["mcp__plugin_kit_dump__hi"]


# -- 3. hooks read the input as the model sent it ------------------------------------------------


def _hooked(project: Path, tmp_path: Path) -> Path:
    (project / ".git").mkdir(exist_ok=True)
    log = tmp_path / "hooks.jsonl"
    script = tmp_path / "hook.py"
    script.write_text(
        "import json, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write(json.dumps(json.load(sys.stdin)) + '\\n')\n"
    )
    cmd = f"{sys.executable} {script}"
    hook = [{"matcher": "*", "hooks": [{"type": "command", "command": cmd}]}]
    events = ("PreToolUse", "PostToolUse", "PermissionRequest")
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {event: hook for event in events}})
    )
    return log


def test_hooks_get_the_input_as_the_model_sent_it(fake_api, project, tmp_path):
    log = _hooked(project, tmp_path)
    (project / "f.txt").write_text("hello\n")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Bash", {"command": "echo hello"}, "toolu_1"),
                    tool_use_block("Read", {"file_path": "f.txt"}, "toolu_2"),
                    tool_use_block("Bash", {"command": "touch zz"}, "toolu_3"),
                ]
            ),
            text_turn("done"),
        ]
    )
    _result(lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api)))
    seen = sorted(
        (e["hook_event_name"], e["tool_name"], json.dumps(e["tool_input"], sort_keys=True))
        for e in map(json.loads, log.read_text().splitlines())
    )
    read = json.dumps({"file_path": str(project / "f.txt")})
    # Measured on Claude Code 2.1.332: no run_in_background default; the path made absolute.
    assert seen == [
        ("PermissionRequest", "Bash", '{"command": "touch zz"}'),
        ("PostToolUse", "Bash", '{"command": "echo hello"}'),
        ("PostToolUse", "Read", read),
        ("PreToolUse", "Bash", '{"command": "echo hello"}'),
        ("PreToolUse", "Bash", '{"command": "touch zz"}'),
        ("PreToolUse", "Read", read),
    ]


def test_a_hooks_updated_input_is_still_validated(fake_api, project, tmp_path):
    (project / ".git").mkdir()
    script = tmp_path / "rewrite.py"
    script.write_text(
        "import json, sys\n"
        "json.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        "'permissionDecision': 'allow', 'updatedInput': {'command': 5}}}))\n"
    )
    hook = [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    ]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": hook}}))
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": "echo hi"}, "toolu_b")]), text_turn("ok")]
    )
    _result(lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api)))
    result = _tool_result(fake_api, "toolu_b")
    assert result["is_error"] is True and "updatedInput is invalid" in json.dumps(result)


# -- 4. the built-in agents' tools ------------------------------------------------------------------


def _agent_run(fake_api, project, agent_type: str) -> dict:
    (project / ".git").mkdir(exist_ok=True)
    skill = project / ".claude" / "skills" / "sk"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\ndescription: a skill\n---\nSK\n")
    call = {"description": "d", "prompt": "say hi", "subagent_type": agent_type}
    fake_api.load(
        [turn_of([tool_use_block("Agent", call, "toolu_a")]), text_turn("sub"), text_turn("done")]
    )
    _result(lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api)))
    return fake_api.bodies()[1]


def test_general_purpose_has_every_tool_with_the_skill_listing(fake_api, project):
    sub = _agent_run(fake_api, project, "general-purpose")
    names = {t["name"] for t in sub["tools"]}
    assert {"Skill", "Bash", "Read", "Edit", "Write", "NotebookEdit", "WebFetch"} <= names
    # Deliberate: no subagent starts subagents, ends plan mode or asks the user.
    assert not names & {"Agent", "ExitPlanMode", "AskUserQuestion"}
    assert "- sk: a skill" in "".join(b["text"] for b in sub["system"])


def test_explore_only_looks_and_gets_the_skills_too(fake_api, project):
    sub = _agent_run(fake_api, project, "Explore")
    names = {t["name"] for t in sub["tools"]}
    assert {"Skill", "Bash", "Read", "Grep", "Glob"} <= names
    assert not names & {"Edit", "Write", "NotebookEdit", "Agent", "ExitPlanMode"}
    assert "- sk: a skill" in "".join(b["text"] for b in sub["system"])


def test_statusline_setup_has_read_and_edit_on_sonnet(fake_api, project):
    sub = _agent_run(fake_api, project, "statusline-setup")
    assert sorted(t["name"] for t in sub["tools"]) == ["Edit", "Read"]
    assert sub["model"] == "claude-sonnet-5-5"
    system = "".join(b["text"] for b in sub["system"])
    assert "statusLine" in system and "skills are available" not in system


# -- 5. fenced ```! blocks ---------------------------------------------------------------------------


def _fenced(project: Path) -> None:
    (project / ".git").mkdir(exist_ok=True)
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    (commands / "fence.md").write_text(
        "Before\n```!\necho FENCED-$((40+2))\necho second\n```\nAfter $ARGUMENTS\n"
    )
    (commands / "touchy.md").write_text("Before\n```!\ntouch made\n```\nAfter\n")


def test_a_fenced_bang_block_runs_and_its_output_replaces_it(fake_api, project):
    _fenced(project)
    fake_api.load([text_turn("ok")])
    _result(lathe(["-p", "/fence xyz", "--output-format", "json"], project, env_for(fake_api)))
    body = fake_api.bodies()[0]["messages"][0]["content"][1]["text"]
    # Claude Code 2.1.332 sends exactly this for the same file (measured).
    assert body == "Before\nFENCED-42\nsecond\nAfter xyz\n"


def test_a_fenced_block_goes_through_the_permission_rules(fake_api, project):
    _fenced(project)
    fake_api.load([text_turn("ok")])
    out = _result(lathe(["-p", "/touchy", "--output-format", "json"], project, env_for(fake_api)))
    assert not (project / "made").exists()  # -p cannot ask, so it did not run
    # A refused block stops the command before any request (ext-r4 F2, Claude Code's words).
    assert fake_api.bodies() == []
    assert out["result"].startswith("Shell command permission check failed for pattern")
    fake_api.load([text_turn("ok")])
    args = ["-p", "/touchy", "--allowedTools", "Bash(touch:*)"]
    _result(lathe([*args, "--output-format", "json"], project, env_for(fake_api)))
    assert (project / "made").exists()


def test_a_fenced_block_in_the_arguments_never_runs(fake_api, project):
    _fenced(project)
    fake_api.load([text_turn("ok")])
    args = "x\n```!\ntouch inj\n```"
    proc = lathe(
        ["-p", f"/fence {args}", "--allowedTools", "Bash(touch:*)"], project, env_for(fake_api)
    )
    assert proc.returncode == 0, proc.stderr
    assert not (project / "inj").exists()


# -- 6. refusals at validation are permission denials ------------------------------------------------


def test_paths_denied_at_validation_are_in_permission_denials(fake_api, project):
    (project / ".git").mkdir()
    (project / "secret.txt").write_text("s\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./secret.txt)", "Edit(./secret.txt)"]}})
    )
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block("Read", {"file_path": "secret.txt"}, "toolu_r"),
                    tool_use_block("Write", {"file_path": "secret.txt", "content": "y"}, "toolu_w"),
                    tool_use_block("Read", {"file_path": "missing.txt"}, "toolu_m"),
                ]
            ),
            text_turn("done"),
        ]
    )
    out = _result(lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api)))
    secret = str(project / "secret.txt")
    # Claude Code 2.1.332's list for the same calls (measured); a missing file is no denial.
    assert out["permission_denials"] == [
        {"tool_name": "Read", "tool_use_id": "toolu_r", "tool_input": {"file_path": secret}},
        {
            "tool_name": "Write",
            "tool_use_id": "toolu_w",
            "tool_input": {"file_path": secret, "content": "y"},
        },
    ]
    assert (project / "secret.txt").read_text() == "s\n"
