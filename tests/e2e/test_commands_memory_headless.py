"""`lathe -p` with custom commands, memory files and `@file`: what the model received.

The fake API records every request; the first one's system prompt and user message are exactly
what Claude Code 2.1.332 sent for the same setup (memory order and headings, the command message
and its expanded body, the Read reminders), apart from lathe keeping memory in the system prompt.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe


@pytest.fixture
def repo(project: Path, tmp_path: Path) -> Path:
    (project / ".git").mkdir()
    commands = project / ".claude" / "commands"
    (commands / "frontend").mkdir(parents=True)
    (commands / "frontend" / "test.md").write_text(
        "---\ndescription: Run the frontend tests\nargument-hint: [file] [mode]\n"
        "allowed-tools: Bash(echo:*)\nmodel: claude-haiku-4-5\n---\n"
        "ALL=[$ARGUMENTS] ZERO=[$0] ONE=[$1]\nShell: !`echo shell-ran`\n"
        "File: @notes.txt\n"
    )
    (commands / "help.md").write_text("shadows the built-in /help")
    (commands / "bad.md").write_text("---\nthis is not frontmatter\n---\nbody\n")
    (project / "notes.txt").write_text("notes content here\n")
    (project / "secret.txt").write_text("TOP SECRET\n")
    (project / "CLAUDE.md").write_text("Project memory. See @docs/extra.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "extra.md").write_text("Imported memory.\n")
    (project / "CLAUDE.local.md").write_text("Local memory.\n")
    (project / "sub").mkdir()
    (project / "sub" / "CLAUDE.md").write_text("Sub-folder memory.\n")
    (project / "sub" / "f.txt").write_text("in sub\n")
    return project


def _texts(message: dict) -> list[str]:
    return [b.get("text", "") for b in message["content"] if b.get("type") == "text"]


def test_custom_command_expands_as_in_claude_code(fake_api, repo):
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", '/frontend:test alpha "beta gamma"'], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    body = fake_api.bodies()[0]
    assert body["model"] == "claude-haiku-4-5"  # the command's model, for its turn
    system = "".join(b["text"] for b in body["system"])
    assert system.index("Project memory.") < system.index("Imported memory.")
    assert system.index("Imported memory.") < system.index("Local memory.")
    assert "Sub-folder memory." not in system  # only when the model works in sub/
    texts = _texts(body["messages"][0])
    assert texts[0] == (
        "<command-message>frontend:test</command-message>\n"
        "<command-name>/frontend:test</command-name>\n"
        '<command-args>alpha "beta gamma"</command-args>'
    )
    assert texts[1].startswith('ALL=[alpha "beta gamma"] ZERO=[alpha] ONE=[beta gamma]\n')
    assert "Shell: shell-ran\n" in texts[1]  # allowed by the command's allowed-tools
    # A refused `!` line stops the command: tests/e2e/test_ext_r5.py (ext-r4 F2).
    assert "description:" not in "".join(texts)
    assert texts[2] == (
        "<system-reminder>\nCalled the Read tool with the following input: "
        f'{{"file_path":"{repo / "notes.txt"}"}}\n</system-reminder>'
    )
    assert texts[3] == (
        "<system-reminder>\nResult of calling the Read tool:\n1\tnotes content here\n"
        "</system-reminder>"
    )
    assert "/help" in proc.stderr and "built-in" in proc.stderr
    assert "bad.md skipped" in proc.stderr


def test_at_mentions_in_a_prompt(fake_api, repo):
    fake_api.load([text_turn("ok")])
    prompt = 'Look at @"notes.txt", @docs/ and @secret.txt; mail me@example.com about @nope.txt'
    proc = lathe(["-p", prompt, "--disallowedTools", "Read(secret.txt)"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    texts = _texts(fake_api.bodies()[0]["messages"][0])
    assert texts[0] == prompt  # the prompt as typed; e-mail and missing file stay literal
    joined = "\n".join(texts[1:])
    assert "notes content here" in joined
    assert f"Listed directory {repo / 'docs'}:\n- extra.md" in joined
    assert "TOP SECRET" not in joined
    assert "secret.txt not attached: reading it is denied" in proc.stderr


def test_nested_memory_comes_with_the_tool_result(fake_api, repo):
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": "sub/f.txt"}, "r1")]),
            turn_of([tool_use_block("Read", {"file_path": "sub/f.txt"}, "r2")]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "read sub/f.txt twice"], repo, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    bodies = fake_api.bodies()
    first_results = bodies[1]["messages"][-1]
    assert first_results["content"][0]["type"] == "tool_result"
    assert any("Sub-folder memory." in t for t in _texts(first_results))
    second_results = bodies[2]["messages"][-1]
    assert not any("Sub-folder memory." in t for t in _texts(second_results))  # once
