"""The command line the Claude Agent SDK builds (its transport's _build_command) parses in lathe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import UsageError, parse_args


def sdk_command(tmp_path: Path) -> list[str]:
    """What claude_agent_sdk 0.2.x passes, flag for flag, for a fully loaded ClaudeAgentOptions."""
    prompt_file = tmp_path / "prompt.txt"
    prompt_file.write_text("from a file", encoding="utf-8")
    return [
        "--output-format",
        "stream-json",
        "--verbose",
        "--system-prompt",
        "",
        "--tools",
        "Read,Bash",
        "--allowedTools",
        "Read,Bash(git status)",
        "--max-turns",
        "3",
        "--max-budget-usd",
        "0.5",
        "--disallowedTools",
        "Write",
        "--model",
        "claude-sonnet-4-5",
        "--fallback-model",
        "claude-haiku-4-5",
        "--permission-prompt-tool",
        "stdio",
        "--permission-mode",
        "acceptEdits",
        "--session-id=0b6c9a52-5d3e-4b1e-9d8e-2f0a1c3b4d5e",
        "--settings",
        '{"permissions": {"allow": ["Read"]}}',
        "--add-dir",
        str(tmp_path),
        "--mcp-config",
        json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}),
        "--include-partial-messages",
        "--include-hook-events",
        "--strict-mcp-config",
        "--setting-sources=user,project",
        "--max-thinking-tokens",
        "2048",
        "--json-schema",
        '{"type": "object"}',
        "--agents",
        '{"rev": {"description": "reviews", "prompt": "Review."}}',
        "--input-format",
        "stream-json",
    ]


def test_the_sdks_whole_command_line_parses(tmp_path: Path) -> None:
    opts = parse_args(sdk_command(tmp_path))
    sdk = opts.sdk
    # No -p: stream-json input is a headless run with no prompt of its own.
    assert opts.print_mode and opts.prompt in ("", None)
    assert sdk.streaming_input and sdk.verbose and sdk.system_prompt == ""
    assert sdk.tools == ("Read", "Bash") and sdk.max_budget_usd == 0.5
    assert sdk.session_id == "0b6c9a52-5d3e-4b1e-9d8e-2f0a1c3b4d5e"
    assert sdk.setting_sources == ("user", "project") and sdk.strict_mcp_config
    assert sdk.mcp_config == ({"calc": {"type": "sdk", "name": "calc"}},)
    assert sdk.agents == {"rev": {"description": "reviews", "prompt": "Review."}}
    assert sdk.max_thinking_tokens == 2048 and sdk.json_schema == {"type": "object"}
    assert opts.allowed_tools == ["Read,Bash(git status)"] and opts.max_turns == 3
    # Inline settings JSON became a file the one settings loader reads.
    assert opts.settings is not None and opts.settings.endswith(".json")
    assert json.loads(Path(opts.settings).read_text(encoding="utf-8"))["permissions"]


def test_tools_default_and_none(tmp_path: Path) -> None:
    base = ["--input-format", "stream-json", "--output-format", "stream-json"]
    assert parse_args([*base, "--tools", "default"]).sdk.tools is None
    assert parse_args([*base, "--tools", ""]).sdk.tools == ()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input-format", "stream-json"], "needs --output-format stream-json"),
        (
            [
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--max-budget-usd",
                "x",
            ],
            "--max-budget-usd x",
        ),
        (
            [
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--mcp-config",
                "{nope",
            ],
            "--mcp-config",
        ),
        (
            [
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--setting-sources",
                "user,cloud",
            ],
            "'cloud'",
        ),
        (
            [
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--permission-prompt-tool",
                "mcp__x__y",
            ],
            "only 'stdio'",
        ),
    ],
)
def test_bad_values_are_usage_errors_naming_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_args(args)


def test_unknown_flag_is_named_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    assert main(["--output-format", "stream-json", "--frobnicate", "yes"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lathe: unknown option --frobnicate")


STREAM = ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]


@pytest.mark.parametrize(
    ("flags", "mode", "allow_bypass"),
    [
        ([], None, False),
        (["--permission-mode", "default"], "default", False),
        # "auto" (the SDK's model-classifier mode) runs as default: never looser.
        (["--permission-mode", "auto"], "default", False),
        (["--allow-dangerously-skip-permissions"], None, True),
        (["--dangerously-skip-permissions"], "bypassPermissions", True),
        (["--dangerously-skip-permissions", "--permission-mode", "plan"], "plan", True),
        (["--permission-mode", "bypassPermissions"], "bypassPermissions", True),
    ],
)
def test_launch_mode_and_whether_bypass_may_be_switched_to_later(
    flags: list[str], mode: str | None, allow_bypass: bool
) -> None:
    opts = parse_args([*STREAM, *flags])
    assert opts.permission_mode == mode
    assert opts.sdk.allow_bypass is allow_bypass


def _real_sdk_command(**options: object) -> list[str]:
    """The command line the installed claude-agent-sdk builds for these options (its own code)."""
    from claude_agent_sdk import ClaudeAgentOptions
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    transport = SubprocessCLITransport(
        prompt="hi", options=ClaudeAgentOptions(cli_path="/bin/true", **options)
    )
    return transport._build_command()[1:]


@pytest.mark.parametrize(
    ("options", "extra"),
    [
        (
            {"betas": ["context-1m-2025-08-07"]},
            {"extra_headers": {"anthropic-beta": "context-1m-2025-08-07"}},
        ),
        (
            {"effort": "high"},
            {
                "extra_body": {"output_config": {"effort": "high"}},
                "extra_headers": {"anthropic-beta": "effort-2025-11-24"},
            },
        ),
        (
            {"task_budget": {"total": 50_000}},
            {
                "extra_body": {
                    "output_config": {"task_budget": {"type": "tokens", "total": 50_000}}
                },
                "extra_headers": {"anthropic-beta": "task-budgets-2026-03-13"},
            },
        ),
        ({"thinking": {"type": "adaptive"}}, {"thinking": {"type": "adaptive"}}),
        ({"thinking": {"type": "disabled"}}, {}),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2048}},
            {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 16_000},
        ),
    ],
)
def test_the_sdks_request_options_become_request_parameters(
    options: dict[str, object], extra: dict[str, object]
) -> None:
    from app.protocol.options import request_extra

    opts = parse_args(_real_sdk_command(**options))
    assert request_extra(opts.sdk) == extra


def test_resume_session_at_needs_resume_and_drops_turn_needs_it() -> None:
    opts = parse_args(_real_sdk_command(resume="abc", resume_session_at="u1", fork_session=True))
    assert (opts.sdk.resume_session_at, opts.sdk.fork_session) == ("u1", True)
    with pytest.raises(UsageError, match="--resume-session-at requires --resume"):
        parse_args(_real_sdk_command(resume_session_at="u1"))
    with pytest.raises(UsageError, match="--resume-drops-turn requires --resume-session-at"):
        parse_args(["-p", "x", "--resume-drops-turn", "u2", "--resume", "abc"])
    with pytest.raises(UsageError, match="--effort x: expected one of"):
        parse_args(["-p", "x", "--effort", "x"])
