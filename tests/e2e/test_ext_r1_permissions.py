"""ext-r1 findings F16/F17 through the real `lathe -p` and the HTTP fake: deny rules naming a
subagent type (`Agent(Explore)`, `Task(Explore)`, bare `Task`) or either name of a skill stop the
call, from the command line and from settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe


def _agent_script(fake_api, subagent_type: str) -> None:
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Agent",
                        {"description": "d", "prompt": "P", "subagent_type": subagent_type},
                        "toolu_a",
                    )
                ]
            ),
            text_turn("SUBAGENT-RAN"),
            text_turn("done"),
        ]
    )


def _tool_result(fake_api, tool_use_id: str) -> dict:
    for body in fake_api.bodies():
        for message in body["messages"]:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return block
    raise AssertionError(f"no tool_result for {tool_use_id}")


@pytest.mark.parametrize(
    ("rule", "agent_type"),
    [
        ("Agent(Explore)", "Explore"),
        ("Task(Explore)", "Explore"),
        ("Agent(general-purpose)", "general-purpose"),
        ("Task(general-purpose)", "general-purpose"),
    ],
)
def test_a_deny_rule_naming_the_agent_type_stops_the_subagent(fake_api, project, rule, agent_type):
    (project / ".git").mkdir()
    _agent_script(fake_api, agent_type)
    proc = lathe(["-p", "hi", "--disallowedTools", rule], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert len(fake_api.bodies()) == 2  # main, main again: no subagent request
    result = _tool_result(fake_api, "toolu_a")
    assert result.get("is_error") is True
    text = json.dumps(result)
    assert f"Agent type '{agent_type}' has been denied by permission rule '{rule}'" in text


def test_a_settings_deny_of_a_custom_agent_type_and_bare_task(fake_api, project):
    (project / ".git").mkdir()
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: reviews\n---\nYou review.\n"
    )
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Agent(reviewer)"]}})
    )
    _agent_script(fake_api, "reviewer")
    proc = lathe(["-p", "hi", "--output-format", "json"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert len(fake_api.bodies()) == 2
    assert "Agent type 'reviewer' has been denied" in json.dumps(_tool_result(fake_api, "toolu_a"))
    denials = json.loads(proc.stdout)["permission_denials"]
    assert [d["tool_name"] for d in denials] == ["Agent"]


def test_a_bare_task_deny_removes_the_agent_tool(fake_api, project):
    (project / ".git").mkdir()
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi", "--disallowedTools", "Task"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    names = [t["name"] for t in fake_api.bodies()[0]["tools"]]
    assert "Agent" not in names and "Read" in names


def _skill(project: Path) -> None:
    folder = project / ".claude" / "skills" / "fmname"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: other-name\ndescription: a skill\n---\nSKILL-BODY-LOADED\n"
    )


@pytest.mark.parametrize(
    ("rule", "called"),
    [
        ("Skill(other-name)", "fmname"),
        ("Skill(fmname)", "other-name"),
        ("Skill(fmname)", "fmname"),
        ("Skill(other-name)", "other-name"),
    ],
)
def test_a_skill_deny_holds_for_its_folder_and_frontmatter_names(fake_api, project, rule, called):
    (project / ".git").mkdir()
    _skill(project)
    fake_api.load(
        [
            turn_of([tool_use_block("Skill", {"skill": called}, "toolu_s")]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "hi", "--disallowedTools", rule], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    result = _tool_result(fake_api, "toolu_s")
    assert result.get("is_error") is True, result
    assert "SKILL-BODY-LOADED" not in json.dumps(fake_api.bodies())
    assert rule in json.dumps(result)


def test_denials_inside_a_subagent_are_in_the_results_permission_denials(fake_api, project):
    (project / ".git").mkdir()
    (project / "secret.txt").write_text("s")
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Agent",
                        {"description": "d", "prompt": "P", "subagent_type": "general-purpose"},
                        "toolu_a",
                    )
                ]
            ),
            turn_of(
                [
                    tool_use_block("Bash", {"command": "rm secret.txt"}, "toolu_r"),
                    tool_use_block("Bash", {"command": "touch x"}, "toolu_b"),
                ]
            ),
            text_turn("sub done"),
            text_turn("done"),
        ]
    )
    proc = lathe(
        ["-p", "hi", "--output-format", "json", "--disallowedTools", "Bash(rm:*)"],
        project,
        env_for(fake_api),
    )
    assert proc.returncode == 0, proc.stderr
    denials = json.loads(proc.stdout)["permission_denials"]
    assert sorted((d["tool_name"], d["tool_use_id"]) for d in denials) == [
        ("Bash", "toolu_b"),
        ("Bash", "toolu_r"),
    ]
    assert not (project / "x").exists() and (project / "secret.txt").exists()


def _outside_setup(project: Path, settings: dict, name: str = "settings.json") -> Path:
    (project / ".git").mkdir(exist_ok=True)
    outside = project.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "o.txt").write_text("OUTSIDE-TEXT")
    (project / ".claude").mkdir(exist_ok=True)
    text = json.dumps(settings).replace("OUT", str(outside))
    (project / ".claude" / name).write_text(text)
    return outside


def _outside_calls(fake_api, outside: Path) -> None:
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": str(outside / "o.txt")}, "toolu_r")]),
            turn_of(
                [
                    tool_use_block(
                        "Write", {"file_path": str(outside / "w.txt"), "content": "x"}, "toolu_w"
                    )
                ]
            ),
            text_turn("done"),
        ]
    )


@pytest.mark.parametrize(
    "settings",
    [
        {"permissions": {"additionalDirectories": ["OUT"]}},
        {"permissions": {"allow": ["Read(/OUT/**)", "Write(/OUT/**)", "Edit(/OUT/**)"]}},
        {"permissions": {"allow": ["Read(../outside/**)", "Edit(../outside/**)"]}},
        # Bare and `*` rules name every path, outside the project too (round-6 attack, F7).
        {"permissions": {"allow": ["Read", "Write", "Edit"]}},
        {"permissions": {"allow": ["Read(*)", "Edit(*)", "Write(**)"]}},
    ],
)
def test_an_untrusted_projects_settings_do_not_reach_outside_it_headless(
    fake_api, project, tmp_path, settings
):
    outside = _outside_setup(project, settings)
    _outside_calls(fake_api, outside)
    env = env_for(fake_api, LATHE_STATE_DIR=str(tmp_path / "state"))
    proc = lathe(["-p", "hi", "--permission-mode", "acceptEdits"], project, env)
    assert proc.returncode == 0, proc.stderr
    assert "OUTSIDE-TEXT" not in json.dumps(_tool_result(fake_api, "toolu_r"))
    assert not (outside / "w.txt").exists()
    # Since ext-r2 F19 every checked-in allow rule is ignored, in Claude Code's words.
    assert "not trusted" in proc.stderr or "has not been trusted" in proc.stderr


def test_a_trusted_project_and_the_local_file_still_reach_outside(fake_api, project, tmp_path):
    from app.permissions.trust import set_trusted

    state = tmp_path / "state"
    settings = {"permissions": {"additionalDirectories": ["OUT"]}}
    outside = _outside_setup(project, settings)
    set_trusted(project, True, {"LATHE_STATE_DIR": str(state)})
    _outside_calls(fake_api, outside)
    env = env_for(fake_api, LATHE_STATE_DIR=str(state))
    proc = lathe(["-p", "hi", "--permission-mode", "acceptEdits"], project, env)
    assert proc.returncode == 0, proc.stderr
    assert "OUTSIDE-TEXT" in json.dumps(_tool_result(fake_api, "toolu_r"))
    assert (outside / "w.txt").exists()


def test_the_local_settings_file_is_the_users_and_still_reaches_outside(
    fake_api, project, tmp_path
):
    settings = {"permissions": {"additionalDirectories": ["OUT"]}}
    outside = _outside_setup(project, settings, "settings.local.json")
    _outside_calls(fake_api, outside)
    env = env_for(fake_api, LATHE_STATE_DIR=str(tmp_path / "state"))
    proc = lathe(["-p", "hi"], project, env)
    assert proc.returncode == 0, proc.stderr
    assert "OUTSIDE-TEXT" in json.dumps(_tool_result(fake_api, "toolu_r"))


def test_sdk_mode_waits_for_a_background_agent_and_runs_its_notification_turn(fake_api, project):
    from tests.e2e.test_headless_cli import lines
    from tests.support.subagents import requests_of, route

    (project / ".git").mkdir()
    route(
        fake_api,
        {
            "go": [
                turn_of(
                    [
                        tool_use_block(
                            "Agent",
                            {"description": "bg", "prompt": "SUB-BG", "run_in_background": True},
                            "toolu_bg",
                        )
                    ]
                ),
                text_turn("main after launch"),
                text_turn("main after notification"),
            ],
            "SUB-BG": [text_turn("SUBREPORT-BG", delay=0.3)],
        },
    )
    proc = lathe(
        ["-p", "go", "--output-format", "stream-json", "--verbose"], project, env_for(fake_api)
    )
    assert proc.returncode == 0, proc.stderr
    results = [o["result"] for o in lines(proc.stdout) if o["type"] == "result"]
    assert results == ["main after launch", "main after notification"]
    notified = json.dumps(requests_of(fake_api, "go")[-1]["messages"][-1])
    assert "<task-notification>" in notified and "SUBREPORT-BG" in notified
