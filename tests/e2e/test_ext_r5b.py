"""Issue 15, ext-fix6b: the ext-r4 black-box findings F15 and later (F14, nested subagents, is
kept as issue 15 says: a subagent starts no subagents), through the real `lathe -p`,
the HTTP fake, real hook processes and real files. Claude Code 2.1.332's behaviour for each was
measured with the report's reproductions (/work/attack/ext-r4-repro/FN) against the same fake
(CHANGELOG, Round 7).
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


def _texts(body: dict) -> str:
    out = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
            continue
        for block in content:
            if block.get("type") == "text":
                out.append(block["text"])
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, str):
                    out.append(inner)
                elif isinstance(inner, list):
                    out.extend(b.get("text", "") for b in inner)
    return "\n".join(out)


def _tools(body: dict) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


# -- F19: --setting-sources in plain -p -----------------------------------------------------------


def test_setting_sources_user_keeps_the_projects_hooks_out_of_plain_print_mode(
    fake_api, project, tmp_path
):
    ran = tmp_path / "project-hook-ran"
    hook = {"type": "command", "command": f"touch {ran}"}
    _write(
        project / ".claude" / "settings.json",
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}),
    )
    for flags in (("--setting-sources", "user"), ("--setting-sources=user",)):
        fake_api.load([text_turn("ok")])
        _ok(_run(fake_api, project, "hi", *flags))
        assert not ran.exists()
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "hi"))  # without the flag the project's hook runs
    assert ran.exists()


# -- F18: an agent whose tools resolve to nothing -------------------------------------------------


def _agent(name: str, front: str, body: str = "You are a test agent.") -> Path:
    text = f"---\nname: {name}\ndescription: {name} agent\n{front}---\n{body}\n"
    return _write(_home() / ".claude" / "agents" / f"{name}.md", text)


def _call(agent_type: str, prompt: str = "go") -> dict:
    return {"description": "d", "prompt": prompt, "subagent_type": agent_type}


def test_an_agent_whose_tools_resolve_to_nothing_is_refused_as_claude_code_refuses_it(
    fake_api, project
):
    _agent("lowertools", "tools: read, bash\n")
    _agent("notools", "tools: []\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", _call("lowertools"), "t1")]),
            turn_of([tool_use_block("Agent", _call("notools"), "t2")]),
            text_turn("NOTOOLS-REPORT"),
            text_turn("done"),
        ]
    )
    _ok(_run(fake_api, project, "hi"))
    refused = _tool_result(fake_api, "t1")
    assert refused["is_error"] is True
    assert (
        "Agent 'lowertools' would be spawned with zero tools \u2014 refusing. Its tools list "
        "resolved to nothing: unrecognized [read, bash]. Fix the agent's tools frontmatter or "
        "pass a different subagent_type." in json.dumps(refused, ensure_ascii=False)
    )
    bodies = fake_api.bodies()
    # No request for lowertools; `tools: []` on purpose still runs, tool-less.
    assert len(bodies) == 4
    assert _tools(bodies[2]) == []
    assert "NOTOOLS-REPORT" in json.dumps(_tool_result(fake_api, "t2"))


# -- F16: an agent's maxTurns ----------------------------------------------------------------------


def test_an_agents_max_turns_ends_it_with_a_note_and_the_main_model_goes_on(fake_api, project):
    _agent("short", "model: haiku\nmaxTurns: 2\n")
    bash = [
        turn_of([tool_use_block("Bash", {"command": f"echo t{n}"}, f"b{n}")]) for n in (1, 2, 3)
    ]
    fake_api.load(
        [turn_of([tool_use_block("Agent", _call("short"), "t1")]), *bash, text_turn("MAINEND")]
    )
    _ok(_run(fake_api, project, "hi", "--allowedTools", "Bash(echo:*)"))
    bodies = fake_api.bodies()
    models = [b["model"] for b in bodies]
    assert models.count("claude-haiku-5-5") == 2  # the limit, not the 4 calls it wanted
    handback = json.dumps(_tool_result(fake_api, "t1"))
    assert "NOTE: this agent stopped at its 2-turn limit before finishing." in handback
    assert "tool_uses: 2" in handback  # the second turn's call still ran and got its result
    assert _tool_result(fake_api, "t1").get("is_error") is not True


# -- F17: skill frontmatter when_to_use, arguments, paths -------------------------------------------


def _skill(project: Path, name: str, front: str, body: str) -> Path:
    return _write(project / ".claude" / "skills" / name / "SKILL.md", f"---\n{front}---\n{body}\n")


def test_skill_when_to_use_named_arguments_and_paths_as_claude_code_reads_them(fake_api, project):
    _skill(project, "wtu", "description: WTUDESC base\nwhen_to_use: WHENTOUSE banana\n", "w")
    _skill(project, "named", "description: named\narguments: [target, mode]\n", "T=$target M=$mode")
    _skill(
        project,
        "named2",
        "description: n2\narguments: target mode\n",
        "T=$target M=${mode} X=$targetx",
    )
    _skill(project, "pathsk", 'description: PATHSKILL for py\npaths: "**/*.py"\n', "p")
    _write(project / "src" / "x.py", "print(1)\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(project / "README")}, "r0")]),
            turn_of([tool_use_block("Read", {"file_path": str(project / "src" / "x.py")}, "r1")]),
            text_turn("ok"),
        ]
    )
    _write(project / "README", "readme\n")
    _ok(_run(fake_api, project, "hi"))
    first, second, _third = (json.dumps(b) for b in fake_api.bodies())
    assert "- wtu: WTUDESC base - WHENTOUSE banana" in first
    # The `paths:` skill: not listed until a .py file is read, then announced once.
    assert "PATHSKILL" not in first and "PATHSKILL" not in second
    announced = _texts(fake_api.bodies()[2])
    assert (
        "The following skills are available for use with the Skill tool:\n\n- pathsk: "
        "PATHSKILL for py" in announced
    )
    assert announced.count("PATHSKILL") == 1
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "/named prod"))
    assert "T=prod M=\n" in _texts(fake_api.bodies()[-1]) + "\n"
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "/named2 a b c"))
    assert "T=a M=${mode} X=$targetx" in _texts(fake_api.bodies()[-1])


# -- F15: an agent file's own hooks -----------------------------------------------------------------


def test_an_agents_frontmatter_hooks_run_for_its_own_calls_and_its_end_only(
    fake_api, project, tmp_path
):
    log = tmp_path / "ahook.log"

    def hook(word: str) -> str:
        return (
            f'        - type: command\n          command: "cat >/dev/null; echo {word} >> {log}"\n'
        )

    hooks = (
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        + hook("agentpre")
        + "  PostToolUse:\n    - matcher: Bash\n      hooks:\n"
        + hook("agentpost")
        + "  Stop:\n    - hooks:\n"
        + hook("agentstop")
    )
    _agent("hk", f"model: haiku\n{hooks}")
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", _call("hk"), "t1")]),
            turn_of([tool_use_block("Bash", {"command": "echo sub"}, "b1")]),
            text_turn("SUBDONE"),
            turn_of([tool_use_block("Bash", {"command": "echo main"}, "b2")]),
            text_turn("ok"),
        ]
    )
    _ok(_run(fake_api, project, "hi", "--allowedTools", "Bash(echo:*)"))
    # Only the subagent's Bash ran them, and its end ran the Stop hook; the main model's did not.
    assert log.read_text().split() == ["agentpre", "agentpost", "agentstop"]
    assert "main" in json.dumps(_tool_result(fake_api, "b2"))


def test_an_agents_hook_that_blocks_guards_its_calls(fake_api, project, tmp_path):
    block = _write(
        tmp_path / "block.sh", "#!/bin/sh\ncat >/dev/null\necho NOPE >&2\nexit 2\n", 0o755
    )
    ran = tmp_path / "ran"
    hooks = (
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        f"        - type: command\n          command: {block}\n"
    )
    _agent("guarded", f"model: haiku\n{hooks}")
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", _call("guarded"), "t1")]),
            turn_of([tool_use_block("Bash", {"command": f"touch {ran}"}, "b1")]),
            text_turn("SUBDONE"),
            text_turn("ok"),
        ]
    )
    _ok(_run(fake_api, project, "hi", "--allowedTools", "Bash(touch:*)"))
    assert not ran.exists()
    assert "NOPE" in json.dumps(_tool_result(fake_api, "b1"))


# -- a project agent's hooks headless ---------------------------------------------------------


def test_a_project_agents_hooks_run_headless_as_the_projects_own_hooks_do(
    fake_api, project, tmp_path
):
    log = tmp_path / "phook.log"
    front = (
        "model: haiku\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        f'        - type: command\n          command: "cat >/dev/null; echo projpre >> {log}"\n'
    )
    text = f"---\nname: proj\ndescription: project agent\n{front}---\nx\n"
    _write(project / ".claude" / "agents" / "proj.md", text)
    fake_api.load(
        [
            turn_of([tool_use_block("Agent", _call("proj"), "t1")]),
            turn_of([tool_use_block("Bash", {"command": "echo sub"}, "b1")]),
            text_turn("SUBDONE"),
            text_turn("ok"),
        ]
    )
    _ok(_run(fake_api, project, "hi", "--allowedTools", "Bash(echo:*)"))
    assert log.read_text().split() == ["projpre"]
