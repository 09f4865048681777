"""The Claude Code events lathe added (PermissionRequest, Notification, SubagentStart,
SubagentStop) through the real CommandHookRunner and real hook processes: input fields,
matchers, and how several hooks' answers combine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.config.hooks import HookSource, parse_hook_sources
from app.execution.interfaces import HookToolCall
from app.hooks.runner import CommandHookRunner


def _runner(tmp_path: Path, hooks: dict[str, Any]) -> CommandHookRunner:
    config = parse_hook_sources([HookSource("user", "/u/settings.json", hooks)], True)
    assert not [p for p in config.problems if p.severity == "error"], config.problems
    return CommandHookRunner(
        config,
        session_id="s1",
        transcript_path=str(tmp_path / "t.jsonl"),
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        permission_mode=lambda: "default",
        env_file_dir=str(tmp_path / "envs"),
    )


def _entry(command: str, matcher: str = "") -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def _answer(behavior: str, **extra: Any) -> str:
    decision = {"behavior": behavior, **extra}
    out = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    return f"echo '{json.dumps(out)}'"


def _read(path: str) -> str:
    return Path(path).read_text()


CALL = HookToolCall("Bash", {"command": "make"}, "t1")


async def test_permission_request_input_and_allow_with_updated_input(tmp_path: Path) -> None:
    dump = tmp_path / "in.json"
    runner = _runner(
        tmp_path,
        {
            "PermissionRequest": _entry(
                f"cat > {dump}; " + _answer("allow", updatedInput={"command": "make -n"}), "Bash"
            )
        },
    )
    result = await runner.permission_request(CALL, ["Bash(make:*)"])
    assert result.behavior == "allow" and result.updated_input == {"command": "make -n"}
    data = json.loads(dump.read_text())
    assert data["hook_event_name"] == "PermissionRequest"
    assert data["tool_name"] == "Bash" and data["tool_input"] == {"command": "make"}
    assert data["permission_suggestions"] == [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "make:*"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ]
    other = await runner.permission_request(HookToolCall("Edit", {}, "t2"), [])
    assert other.behavior is None  # the matcher is the tool name


async def test_permission_request_deny_wins_and_exit_2_denies(tmp_path: Path) -> None:
    runner = _runner(
        tmp_path,
        {
            "PermissionRequest": [
                *_entry(_answer("allow")),
                *_entry(_answer("deny", message="not on Fridays")),
            ]
        },
    )
    result = await runner.permission_request(CALL, [])
    assert (result.behavior, result.message) == ("deny", "not on Fridays")
    blocked = _runner(tmp_path, {"PermissionRequest": _entry("echo nope >&2; exit 2")})
    result = await blocked.permission_request(CALL, [])
    assert (result.behavior, result.message) == ("deny", "nope")
    wrong = _runner(tmp_path, {"PermissionRequest": _entry(_answer("maybe"))})
    result = await wrong.permission_request(CALL, [])
    assert result.behavior is None and any("behavior" in m.text for m in result.messages)


async def test_notification_and_subagent_events_carry_claude_codes_fields(tmp_path: Path) -> None:
    dump = tmp_path / "events.jsonl"
    record = f"cat >> {dump}; echo >> {dump}"
    runner = _runner(
        tmp_path,
        {
            "Notification": _entry(record, "permission_prompt"),
            "SubagentStart": _entry(record, "Explore"),
            "SubagentStop": _entry(record + '; echo \'{"decision": "block", "reason": "more"}\''),
        },
    )
    await runner.notification("Claude needs your permission to use Bash", "permission_prompt")
    await runner.notification("Claude is waiting for your input", "idle_prompt")  # no match
    await runner.subagent_start("a1", "Explore")
    await runner.subagent_start("a2", "general-purpose")  # no match
    stop = await runner.subagent_stop("a1", "Explore", "/t/a1.jsonl", "found it", False)
    assert stop.should_continue and stop.reason == "more"
    events = [json.loads(line) for line in dump.read_text().splitlines() if line.strip()]
    assert [e["hook_event_name"] for e in events] == [
        "Notification",
        "SubagentStart",
        "SubagentStop",
    ]
    assert events[0]["notification_type"] == "permission_prompt"
    assert events[0]["message"] == "Claude needs your permission to use Bash"
    assert (events[1]["agent_id"], events[1]["agent_type"]) == ("a1", "Explore")
    assert events[2] | {"session_id": ""} == events[2] | {
        "session_id": "",
        "stop_hook_active": False,
        "agent_id": "a1",
        "agent_type": "Explore",
        "agent_transcript_path": "/t/a1.jsonl",
        "last_assistant_message": "found it",
    }


async def test_session_start_hooks_get_their_own_env_file(tmp_path: Path) -> None:
    from tools.process.child_env import clear_env_files, env_files

    clear_env_files()
    runner = _runner(
        tmp_path,
        {
            "SessionStart": [
                *_entry('echo "export A=1" >> "$CLAUDE_ENV_FILE"'),
                *_entry('echo "export B=2" >> "$CLAUDE_ENV_FILE"'),
            ]
        },
    )
    await runner.session_start("startup")
    files = env_files()
    assert [Path(f).name for f in files] == ["sessionstart-hook-0.sh", "sessionstart-hook-1.sh"]
    assert sorted(_read(f) for f in files) == ["export A=1\n", "export B=2\n"]
    clear_env_files()
