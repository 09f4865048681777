"""Hook configuration: Claude Code's shape, clear problems for bad entries, trust, listing."""

from __future__ import annotations

import pytest

from app.config.hooks import (
    HookSource,
    Matcher,
    list_hooks,
    parse_hook_sources,
)


def cmd(command: str, **kw: object) -> dict[str, object]:
    return {"type": "command", "command": command, **kw}


def test_good_entries_load_with_defaults_and_sources() -> None:
    config = parse_hook_sources(
        [
            (
                "user",
                "/u/settings.toml",
                {"PreToolUse": [{"matcher": "Bash", "hooks": [cmd("a")]}]},
            ),
            (
                "claude-project",
                "/p/.claude/settings.json",
                {"Stop": [{"hooks": [cmd("b", timeout=5)]}]},
            ),
        ],
        trusted=True,
    )
    assert config.problems == ()
    a, b = config.handlers
    assert (a.event, a.command, a.timeout, a.source, a.path) == (
        "PreToolUse",
        "a",
        600.0,
        "user",
        "/u/settings.toml",
    )
    assert (b.event, b.timeout, b.source) == ("Stop", 5.0, "claude-project")
    assert "user settings" in a.label and "`a`" in a.label


def test_malformed_entries_are_named_and_the_good_ones_still_load() -> None:
    hooks = {
        "PreToolUse": [
            "not a table",
            {"matcher": "(", "hooks": [cmd("bad-regex")]},
            {"matcher": 3, "hooks": [cmd("bad-matcher")]},
            {"matcher": "Bash", "hooks": []},
            {
                "matcher": "Bash",
                "hooks": [
                    cmd(""),
                    cmd("t", timeout=-1),
                    cmd("t2", timeout="10"),
                    {"type": "agent", "prompt": "x"},
                    42,
                    cmd("good"),
                ],
            },
        ],
        "PostToolUse": "oops",
        "Notification": [],
        "PreToolUs": [],
    }
    config = parse_hook_sources([HookSource("local", "/p/.lathe/settings.local.toml", hooks)], True)
    assert [h.command for h in config.handlers] == ["good"]
    texts = [str(p) for p in config.problems]
    assert all(t.startswith("/p/.lathe/settings.local.toml: ") for t in texts)
    joined = "\n".join(texts)
    for expected in (
        "hooks.PreToolUse[0] must be a table with `matcher` and `hooks`, not the string 'not a table'",
        "hooks.PreToolUse[1].matcher '(' is not a valid regular expression",
        "hooks.PreToolUse[2].matcher must be a string",
        "hooks.PreToolUse[3].hooks must be a non-empty list of handlers",
        "hooks.PreToolUse[4].hooks[0].command must be a non-empty string",
        "hooks.PreToolUse[4].hooks[1].timeout must be a positive number of seconds, not -1",
        "hooks.PreToolUse[4].hooks[2].timeout must be a positive number of seconds, not '10'",
        'hooks.PreToolUse[4].hooks[3]: hook type "agent" is not supported',
        "hooks.PreToolUse[4].hooks[4] must be a table",
        "hooks.PostToolUse must be a list of entries",
        "hooks.PreToolUs: unknown hook event",
    ):
        assert expected in joined, expected
    severities = {p.message.split(" ")[0]: p.severity for p in config.problems}
    assert severities["hooks.PreToolUs:"] == "warning"
    assert "hooks.Notification" not in joined  # an event lathe emits now
    # An agent hook guarding tool calls cannot run: the file is refused, never a silent allow.
    assert severities["hooks.PreToolUse[4].hooks[3]:"] == "error"


def test_prompt_and_http_hooks_parse_with_their_fields() -> None:
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "prompt", "prompt": "ok? $ARGUMENTS", "model": "claude-x"},
                    {
                        "type": "http",
                        "url": "https://h.example/hook",
                        "headers": {"A": "$T"},
                        "allowedEnvVars": ["T"],
                    },
                    {"type": "http", "url": "file:///etc/passwd"},
                    {"type": "prompt"},
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "agent", "prompt": "verify"}]}],
    }
    config = parse_hook_sources([HookSource("user", "/u/s.json", hooks)], True)
    prompt, http = config.handlers
    assert (prompt.kind, prompt.command, prompt.model, prompt.timeout) == (
        "prompt",
        "ok? $ARGUMENTS",
        "claude-x",
        30.0,
    )
    assert (http.kind, http.url, http.headers, http.allowed_env) == (
        "http",
        "https://h.example/hook",
        (("A", "$T"),),
        ("T",),
    )
    joined = "\n".join(str(p) for p in config.problems)
    assert "url must be an http(s) URL" in joined and "prompt must be a non-empty string" in joined
    stop = next(p for p in config.problems if "Stop" in str(p))
    assert stop.severity == "warning"  # an agent Stop hook is ignored, said


def test_hooks_table_of_the_wrong_type() -> None:
    config = parse_hook_sources([("user", "/u.toml", ["x"])], True)
    assert config.handlers == ()
    assert "`hooks` must be a table of event names" in str(config.problems[0])


def test_matcher_on_events_without_one_is_a_warning_and_matches_all() -> None:
    config = parse_hook_sources(
        [("user", "/u.toml", {"Stop": [{"matcher": "Bash", "hooks": [cmd("s")]}]})], True
    )
    assert config.problems[0].severity == "warning"
    assert config.handlers[0].matcher.matches("anything")


def test_untrusted_project_and_local_sources_are_ignored_but_listed() -> None:
    entry = {"PreToolUse": [{"hooks": [cmd("x")]}]}
    sources = [
        ("claude-user", "~/.claude/settings.json", entry),
        ("claude-project", "/p/.claude/settings.json", entry),
        ("project", "/p/.lathe/settings.toml", entry),
        ("claude-local", "/p/.claude/settings.local.json", entry),
        ("local", "/p/.lathe/settings.local.toml", entry),
        ("policy", "/etc/lathe/settings.toml", entry),
    ]
    config = parse_hook_sources(sources, trusted=False)
    assert [h.source for h in config.handlers] == ["claude-user", "policy"]
    assert [h.source for h in config.ignored] == [
        "claude-project",
        "project",
        "claude-local",
        "local",
    ]
    listing = list_hooks(config)
    assert [(entry.source, entry.active) for entry in listing] == [
        ("claude-user", True),
        ("policy", True),
        ("claude-project", False),
        ("project", False),
        ("claude-local", False),
        ("local", False),
    ]
    assert listing[0].label == "user settings (Claude Code)"
    assert listing[0].path == "~/.claude/settings.json"
    trusted = parse_hook_sources(sources, trusted=True)
    assert len(trusted.handlers) == 6 and trusted.ignored == ()


@pytest.mark.parametrize(
    ("matcher", "name", "expected"),
    [
        ("", "Bash", True),
        ("*", "mcp__x__y", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "NotebookEdit", False),
        ("mcp__memory__.*", "mcp__memory__create", True),
        # A regex is searched for, as Claude Code 2.1.332's `RegExp.test` (ext-r5 F15).
        ("mcp__memory__.*", "xmcp__memory__create", True),
        ("^mcp__memory__.*", "xmcp__memory__create", False),
        ("Notebook.*", "NotebookEdit", True),
        (".*Edit", "Edit", True),
        ("Ed.t", "MultiEdit", True),
        ("^Ed.t$", "MultiEdit", False),
        ("B*", "Read", True),
        ("Bash(touch*)", "Bash", False),
        ("bash", "Bash", False),
        # Comma lists, spaces trimmed.
        ("Write,Edit,MultiEdit", "Edit", True),
        ("Write,Bash", "Bash", True),
        ("Bash, Read", "Read", True),
        ("Bash,Write", "Read", False),
        ("Bash ", "Bash", True),
    ],
)
def test_matcher_semantics(matcher: str, name: str, expected: bool) -> None:
    assert Matcher.parse(matcher).matches(name) is expected
