"""A hook handler's `if` rule (app/execution/hook_conditions.py), matched on real calls' inputs,
and its parsing (app/config/hooks.py). The e2e test (tests/e2e/test_ext_r4.py) runs real hooks."""

from __future__ import annotations

from app.config.hooks import HookSource, parse_hook_sources
from app.execution.hook_conditions import condition_holds
from app.hooks.calls import HookToolCall

PROJECT = "/work/proj"
HOME = "/home/u"


def _holds(condition: str, tool: str, **tool_input: object) -> bool:
    call = HookToolCall(tool, tool_input, "toolu_1", is_mcp=tool.startswith("mcp__"))
    return condition_holds(condition, call, PROJECT, HOME)


def test_bash_rules_match_any_part_and_hidden_commands() -> None:
    assert _holds("Bash(git commit:*)", "Bash", command="git commit -m x")
    assert _holds("Bash(git commit:*)", "Bash", command="ls && git commit -m x")
    assert _holds("Bash(git commit:*)", "Bash", command="sh -c 'git commit -m x'")
    assert _holds("Bash(git commit:*)", "Bash", command="/usr/bin/git commit -m x")
    assert not _holds("Bash(git commit:*)", "Bash", command="echo git commit")
    assert not _holds("Bash(git commit:*)", "Bash", command="git status")
    assert _holds("Bash", "Bash", command="anything")
    assert not _holds("Bash(echo:*)", "Read", file_path="/x")


def test_a_command_the_parser_cannot_see_into_runs_the_hook() -> None:
    # A guard that runs once too often is the safe side of not knowing.
    assert _holds("Bash(rm:*)", "Bash", command="echo 'unterminated")


def test_path_url_mcp_and_other_tools() -> None:
    assert _holds("Read(*.txt)", "Read", file_path=f"{PROJECT}/a/b.txt")
    assert not _holds("Read(*.md)", "Read", file_path=f"{PROJECT}/a/b.txt")
    assert _holds("Edit(src/**)", "Edit", file_path=f"{PROJECT}/src/x.py")
    assert not _holds("Edit(src/**)", "Edit", file_path=f"{PROJECT}/lib/x.py")
    assert _holds("Edit(//etc/**)", "Write", file_path="/etc/passwd") is False  # Write is not Edit
    assert _holds("Write(//etc/**)", "Write", file_path="/etc/passwd")
    assert _holds("WebFetch(domain:example.com)", "WebFetch", url="https://example.com/x")
    assert not _holds("WebFetch(domain:example.com)", "WebFetch", url="https://evil.test/")
    assert _holds("mcp__srv", "mcp__srv__tool")
    assert not _holds("mcp__srv__other", "mcp__srv__tool")
    assert _holds("Skill(deploy*)", "Skill", skill="deploy-prod")
    assert not _holds("Skill(deploy*)", "Skill", skill="lint")
    assert _holds("Task(Explore)", "Agent", subagent_type="Explore")  # an alias names the tool


def test_parsing_keeps_the_condition_and_warns_on_a_bad_one() -> None:
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "a", "if": "Bash(git *)"},
                    {"type": "command", "command": "b", "if": "((bad"},
                    {"type": "command", "command": "c", "if": 3},
                    {"type": "command", "command": "d"},
                ],
            }
        ]
    }
    config = parse_hook_sources([HookSource("user", "/s.json", hooks)], trusted=True)
    assert [(h.command, h.condition) for h in config.handlers] == [("a", "Bash(git *)"), ("d", "")]
    assert [p.severity for p in config.problems] == ["warning", "warning"]
    assert "never runs" in str(config.problems[0]) and "never runs" in str(config.problems[1])
