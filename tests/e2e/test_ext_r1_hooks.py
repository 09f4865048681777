"""ext-r1 hook findings through the real `lathe -p`, real hook processes and the HTTP fake."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_headless_cli import env_for, lathe
from tests.support.subagents import requests_of, route


def _settings(project: Path, hooks: dict[str, Any]) -> None:
    (project / ".git").mkdir(exist_ok=True)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _agent_call() -> Any:
    return turn_of(
        [
            tool_use_block(
                "Agent",
                {"description": "d", "prompt": "P", "subagent_type": "Explore"},
                "toolu_a",
            )
        ]
    )


@pytest.mark.parametrize("matcher", ["Task", "Task|Bash", "Ta.k"])
def test_a_task_matcher_guards_the_agent_tool(fake_api, project, matcher):
    seen = project / "seen.json"
    hook = f"cat > {seen}; echo 'no subagents here' >&2; exit 2"
    _settings(
        project,
        {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]},
    )
    fake_api.load([_agent_call(), text_turn("SUBAGENT-RAN"), text_turn("done")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(seen.read_text())["tool_name"] == "Agent"
    assert len(fake_api.bodies()) == 2  # the subagent never asked the model
    assert "no subagents here" in json.dumps(_tool_result(fake_api, "toolu_a"))


def _bash_call(command: str = "touch ran") -> Any:
    return turn_of([tool_use_block("Bash", {"command": command}, "toolu_b")])


@pytest.mark.parametrize(
    ("answer", "runs"),
    [
        ('{"ok": false, "reason": "no touching"}', False),
        ('Sure.\n{"ok": true}', True),
        ("I cannot tell.", False),  # no verdict: a guard fails closed
    ],
)
def test_a_prompt_hook_asks_the_model_and_its_no_blocks(fake_api, project, answer, runs):
    _settings(
        project,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "prompt", "prompt": "GUARD-PROMPT may this run? $ARGUMENTS"}
                    ],
                }
            ]
        },
    )
    route(
        fake_api,
        {
            "GUARD-PROMPT": [text_turn(answer)],
            "hi": [_bash_call(), text_turn("done")],
        },
    )
    proc = lathe(["-p", "hi", "--allowedTools", "Bash(touch:*)"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert (project / "ran").exists() is runs
    asked = requests_of(fake_api, "GUARD-PROMPT")
    assert len(asked) == 1
    question = asked[0]["messages"][0]["content"]
    question = question if isinstance(question, str) else json.dumps(question)
    assert '\\"tool_name\\": \\"Bash\\"' in question or '"tool_name": "Bash"' in question
    assert asked[0]["model"] == "claude-haiku-4-5"
    if not runs:
        result = json.dumps(_tool_result(fake_api, "toolu_b"))
        assert "no touching" in result or "could not check" in result


class _Hook(BaseHTTPRequestHandler):
    answer: bytes = b"{}"
    status: int = 200
    seen: list[tuple[dict[str, str], bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).seen.append((dict(self.headers), body))
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def hook_server():
    _Hook.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _deny() -> bytes:
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "the server says no",
        }
    }
    return json.dumps(out).encode()


@pytest.mark.parametrize(
    ("answer", "status", "runs", "said"),
    [
        (_deny(), 200, False, "the server says no"),
        (b"{}", 200, True, ""),
        (b"oops", 500, False, "HTTP 500"),
    ],
)
def test_an_http_hook_posts_the_event_and_its_answer_decides(
    fake_api, project, hook_server, answer, status, runs, said
):
    _Hook.answer, _Hook.status = answer, status
    url = f"http://127.0.0.1:{hook_server.server_address[1]}/hook"
    hook = {
        "type": "http",
        "url": url,
        "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "$ANTHROPIC_API_KEY"},
        "allowedEnvVars": ["HOOK_TOKEN"],
    }
    _settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]})
    fake_api.load([_bash_call(), text_turn("done")])
    proc = lathe(
        ["-p", "hi", "--allowedTools", "Bash(touch:*)"],
        project,
        env_for(fake_api, HOOK_TOKEN="tok123"),
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "ran").exists() is runs
    headers, body = _Hook.seen[0]
    event = json.loads(body)
    assert (
        event["hook_event_name"] == "PreToolUse" and event["tool_input"]["command"] == "touch ran"
    )
    assert headers["Authorization"] == "Bearer tok123"
    assert headers["X-Other"] == ""  # not in allowedEnvVars: never sent
    if said:
        assert said in json.dumps(_tool_result(fake_api, "toolu_b"))


def test_an_unreachable_http_guard_blocks_the_call(fake_api, project):
    hook = {"type": "http", "url": "http://127.0.0.1:9/nothing", "timeout": 2}
    _settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]})
    fake_api.load([_bash_call(), text_turn("done")])
    proc = lathe(["-p", "hi", "--allowedTools", "Bash(touch:*)"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert not (project / "ran").exists()
    assert "could not check this call" in json.dumps(_tool_result(fake_api, "toolu_b"))


def test_every_stop_hook_block_is_honoured_with_stop_hook_active(fake_api, project):
    log = project / "stop.log"
    script = project / "stop.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'active=$(grep -o \'"stop_hook_active": *[a-z]*\' | grep -o "[a-z]*$")\n'
        f'echo "$active" >> {log}\n'
        f"n=$(wc -l < {log})\n"
        'if [ "$n" -le 4 ]; then echo "{\\"decision\\":\\"block\\",\\"reason\\":\\"round $n\\"}"; fi\n'
    )
    script.chmod(0o755)
    _settings(project, {"Stop": [{"hooks": [{"type": "command", "command": str(script)}]}]})
    fake_api.load([text_turn(f"answer {i}") for i in range(5)])
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert log.read_text().split() == ["false", "true", "true", "true", "true"]
    assert len(fake_api.bodies()) == 5
    assert "round 4" in json.dumps(fake_api.bodies()[-1]["messages"][-1])
    assert proc.stdout.strip() == "answer 4"


def test_a_stop_hook_that_always_blocks_is_capped(fake_api, project):
    _settings(
        project,
        {"Stop": [{"hooks": [{"type": "command", "command": "echo again >&2; exit 2"}]}]},
    )
    fake_api.load([text_turn(f"answer {i}") for i in range(10)])
    proc = lathe(["-p", "hi"], project, env_for(fake_api, LATHE_MAX_STOP_HOOK_CONTINUATIONS="3"))
    assert proc.returncode == 0, proc.stderr
    assert len(fake_api.bodies()) == 4
    assert "LATHE_MAX_STOP_HOOK_CONTINUATIONS" in proc.stderr


def test_post_tool_use_gets_write_and_edit_responses_in_claude_codes_shape(fake_api, project):
    dump = project.parent / "post.jsonl"
    _settings(
        project,
        {
            "PostToolUse": [
                {
                    "matcher": "Write|Edit",
                    "hooks": [{"type": "command", "command": f"cat >> {dump}; echo >> {dump}"}],
                }
            ]
        },
    )
    target = project / "f.txt"
    other = project / "g.txt"
    other.write_text("one\ntwo\nthree\n")
    fake_api.load(
        [
            turn_of([tool_use_block("Write", {"file_path": str(target), "content": "hello\n"})]),
            turn_of([tool_use_block("Read", {"file_path": str(other)})]),
            turn_of(
                [
                    tool_use_block(
                        "Edit",
                        {"file_path": str(other), "old_string": "two", "new_string": "TWO"},
                    )
                ]
            ),
            turn_of([tool_use_block("Write", {"file_path": str(other), "content": "replaced\n"})]),
            text_turn("done"),
        ]
    )
    proc = lathe(["-p", "hi", "--permission-mode", "acceptEdits"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    create, edit, update = [
        json.loads(line)["tool_response"] for line in dump.read_text().splitlines() if line
    ]
    assert create == {
        "type": "create",
        "filePath": str(target),
        "content": "hello\n",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }
    assert edit == {
        "filePath": str(other),
        "oldString": "two",
        "newString": "TWO",
        "originalFile": "one\ntwo\nthree\n",
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 3,
                "newStart": 1,
                "newLines": 3,
                "lines": [" one", "-two", "+TWO", " three"],
            }
        ],
        "userModified": False,
        "replaceAll": False,
    }
    assert update["type"] == "update" and update["filePath"] == str(other)
    assert update["originalFile"] == "one\nTWO\nthree\n" and update["content"] == "replaced\n"
    assert update["structuredPatch"][0]["lines"][:2] == ["-one", "-TWO"]
