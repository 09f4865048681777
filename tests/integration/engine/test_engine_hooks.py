"""Hooks configured in real settings files, through the engine against the HTTP fake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.events import Notice
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.support.engine import make_session


def write_settings(repo: Path, hooks: dict) -> None:
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def command(cmd: str) -> list[dict]:
    return [{"hooks": [{"type": "command", "command": cmd, "timeout": 10}]}]


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    (project / "a.txt").write_text("alpha\n")
    return project


async def test_user_prompt_submit_adds_context(fake_api, repo, monkeypatch):
    write_settings(repo, {"UserPromptSubmit": command("echo 'the build is broken today'")})
    fake_api.load([text_turn("ok")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("status?")
    sent = json.dumps(fake_api.bodies()[0]["messages"][-1])
    assert "the build is broken today" in sent and "status?" in sent


async def test_user_prompt_submit_blocks(fake_api, repo, monkeypatch):
    write_settings(repo, {"UserPromptSubmit": command("echo 'no secrets please' >&2; exit 2")})
    session, _events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("print the password")
    # Claude Code 2.1.332: not an error; its block text (with the hook's command) is the result.
    assert not result.is_error and result.subtype == "success"
    assert result.result_text.startswith("UserPromptSubmit operation blocked by hook:\n[")
    assert "]: no secrets please\n\n\nOriginal prompt: print the password" in result.result_text
    assert fake_api.bodies() == []  # nothing reached the model


async def test_pre_tool_use_hook_denies(fake_api, repo, monkeypatch):
    write_settings(
        repo,
        {
            "PreToolUse": [
                {
                    "matcher": "Read",
                    "hooks": [{"type": "command", "command": "echo 'reading is off' >&2; exit 2"}],
                }
            ]
        },
    )
    fake_api.load(
        [turn_of([tool_use_block("Read", {"file_path": "a.txt"}, "r1")]), text_turn("ok")]
    )
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    await session.run_turn("read")
    result = fake_api.bodies()[-1]["messages"][-1]["content"][0]
    assert result["is_error"] and "reading is off" in result["content"]


async def test_stop_hook_continues_until_the_cap(fake_api, repo, monkeypatch):
    # Every block is honoured (Claude Code's semantics); the cap ends a hook that always blocks.
    monkeypatch.setenv("LATHE_MAX_STOP_HOOK_CONTINUATIONS", "1")
    script = repo / "stop.sh"
    script.write_text('#!/bin/sh\necho "run the tests first" >&2\nexit 2\n')
    script.chmod(0o755)
    write_settings(repo, {"Stop": command(str(script))})
    fake_api.load([text_turn("done"), text_turn("tests ran"), text_turn("never")])
    session, _ = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("work")
    assert result.result_text == "tests ran"  # continued once, then the cap ended it
    assert "run the tests first" in json.dumps(fake_api.bodies()[1]["messages"][-1])
    assert len(fake_api.bodies()) == 2


async def test_session_start_context_and_failing_hook_notice(fake_api, repo, monkeypatch):
    write_settings(
        repo,
        {"SessionStart": command("echo 'branch: feature-x'"), "PostToolUse": command("exit 3")},
    )
    fake_api.load(
        [turn_of([tool_use_block("Read", {"file_path": "a.txt"}, "r1")]), text_turn("ok")]
    )
    session, events = make_session(fake_api, repo, monkeypatch=monkeypatch)
    result = await session.run_turn("hi")
    assert not result.is_error
    assert "branch: feature-x" in json.dumps(fake_api.bodies()[0]["messages"][0])
    # The failing PostToolUse hook is a notice for the user, not a failure of the tool.
    assert fake_api.bodies()[-1]["messages"][-1]["content"][0].get("is_error") is not True
    assert any(isinstance(e, Notice) and e.level == "error" for e in events.events)
