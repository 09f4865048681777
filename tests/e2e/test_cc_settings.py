"""Claude Code's settings keys and hook parity through the real `lathe -p`, real hook processes
and the HTTP fake of the API: `env`, `apiKeyHelper` (cached, refreshed on a 401, never seen by
Bash), `cleanupPeriodDays`, CLAUDE_ENV_FILE, CLAUDECODE, Bash's `tool_response` shape, Stop's
`last_assistant_message`, PermissionRequest answering the dialog, a hook's allow in dontAsk."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from app.permissions.trust import set_trusted
from tests.e2e.test_headless_cli import env_for, lathe


def _claude_settings(project: Path, data: dict[str, object], name: str = "settings.json") -> None:
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")
    # A checked-in file's env, apiKeyHelper and cleanupPeriodDays apply once the folder is
    # trusted (headless runs in an untrusted folder ignore them: attack round 7).
    set_trusted(project)


def _hook(command: str, matcher: str = "") -> list[dict[str, object]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def _bash_then_done(fake_api, command: str) -> None:
    fake_api.load(
        [turn_of([tool_use_block("Bash", {"command": command}, "b1")]), text_turn("all done")]
    )


def _no_key_env(fake_api, **extra: str) -> dict[str, str]:
    env = env_for(fake_api, **extra)
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("ANTHROPIC_AUTH_TOKEN", None)
    return env


def test_env_reaches_bash_and_hooks_and_claudecode_is_set(fake_api, project: Path) -> None:
    _claude_settings(
        project,
        {
            "env": {"FROM_SETTINGS": "yes", "DEBUG_LEVEL": 3, "LATHE_TEST_TOKEN": "explicit"},
            "hooks": {"PreToolUse": _hook("env > hook_env.txt", "Bash")},
        },
    )
    _bash_then_done(fake_api, "env > bash_env.txt")
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    for name in ("bash_env.txt", "hook_env.txt"):
        text = (project / name).read_text()
        assert "FROM_SETTINGS=yes" in text and "DEBUG_LEVEL=3" in text, name
        # Named like a credential, but set in `env` on purpose: it passes (Claude Code's too).
        assert "LATHE_TEST_TOKEN=explicit" in text, name
        assert "CLAUDECODE=1" in text, name
        assert "ANTHROPIC_API_KEY" not in text, name


def _helper(project: Path, keys: list[str]) -> Path:
    """A helper printing keys[n] on its n-th run and counting its runs."""
    script = project / "key.sh"
    counter = project / "runs"
    script.write_text(
        "#!/bin/sh\n"
        f'n=$(cat "{counter}" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "{counter}"\n'
        + "".join(f'[ $n -eq {i + 1} ] && echo "{k}" && exit 0\n' for i, k in enumerate(keys))
        + f'echo "{keys[-1]}"\n'
    )
    script.chmod(0o755)
    return counter


def test_api_key_helper_supplies_the_key_and_bash_never_sees_it(fake_api, project: Path) -> None:
    fake_api.api_key = "sk-from-helper-1"
    counter = _helper(project, ["sk-from-helper-1"])
    _claude_settings(project, {"apiKeyHelper": str(project / "key.sh")})
    _bash_then_done(fake_api, "env > bash_env.txt")
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], project, _no_key_env(fake_api))
    assert proc.returncode == 0, proc.stderr  # not exit 2 for "no credentials"
    assert "all done" in proc.stdout
    assert "sk-from-helper-1" not in (project / "bash_env.txt").read_text()
    assert counter.read_text().strip() == "1"  # two requests, one run: cached


def test_api_key_helper_runs_again_after_a_401(fake_api, project: Path) -> None:
    fake_api.api_key = "sk-second"
    counter = _helper(project, ["sk-expired", "sk-second"])
    _claude_settings(project, {"apiKeyHelper": str(project / "key.sh")})
    fake_api.load([text_turn("hello after refresh")])
    proc = lathe(["-p", "hi"], project, _no_key_env(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert "hello after refresh" in proc.stdout
    assert counter.read_text().strip() == "2"


def test_an_api_key_in_the_environment_wins_over_the_helper(fake_api, project: Path) -> None:
    """Claude Code's order: ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, then apiKeyHelper."""
    counter = _helper(project, ["sk-unused"])
    _claude_settings(project, {"apiKeyHelper": str(project / "key.sh")})
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert not counter.exists()


def test_a_failing_helper_is_a_clear_error(fake_api, project: Path) -> None:
    (project / "bad.sh").write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    (project / "bad.sh").chmod(0o755)
    _claude_settings(project, {"apiKeyHelper": str(project / "bad.sh")})
    proc = lathe(["-p", "hi"], project, _no_key_env(fake_api))
    assert proc.returncode != 0
    assert (
        "apiKeyHelper" in proc.stdout + proc.stderr and "exit code 3" in proc.stdout + proc.stderr
    )


def test_bash_tool_response_and_stop_input_have_claude_codes_shape(fake_api, project: Path) -> None:
    _claude_settings(
        project,
        {
            "hooks": {
                "PostToolUse": _hook("cat > post.json", "Bash"),
                "Stop": _hook("cat > stop.json"),
            }
        },
    )
    _bash_then_done(fake_api, "echo out; echo err >&2")
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    post = json.loads((project / "post.json").read_text())
    assert post["hook_event_name"] == "PostToolUse"
    assert post["tool_response"] == {
        "stdout": "out\nerr",  # merged, as Claude Code 2.1.332 gives it
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    stop = json.loads((project / "stop.json").read_text())
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "all done"


def test_session_start_env_file_applies_to_later_bash_calls(fake_api, project: Path) -> None:
    _claude_settings(
        project,
        {
            "hooks": {
                "SessionStart": _hook(
                    'echo "export FROM_HOOK=set-up" >> "$CLAUDE_ENV_FILE"; echo "$CLAUDE_ENV_FILE" > envfile.txt'
                )
            }
        },
    )
    _bash_then_done(fake_api, "env > seen.txt")
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert "FROM_HOOK=set-up" in (project / "seen.txt").read_text().splitlines()
    assert (project / "envfile.txt").read_text().strip().endswith("sessionstart-hook-0.sh")


ALLOW = json.dumps(
    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
)


@pytest.mark.parametrize("deny_rule", [False, True])
def test_a_hooks_allow_lets_a_call_through_in_dont_ask_mode(
    fake_api, project: Path, deny_rule: bool
) -> None:
    settings: dict[str, object] = {"hooks": {"PreToolUse": _hook(f"echo '{ALLOW}'", "Bash")}}
    if deny_rule:
        settings["permissions"] = {"deny": ["Bash(touch:*)"]}
    _claude_settings(project, settings)
    _bash_then_done(fake_api, "touch made.txt")
    proc = lathe(["-p", "go", "--permission-mode", "dontAsk"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    # The hook answered; a deny rule still wins over it.
    assert (project / "made.txt").exists() is (not deny_rule)


@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_permission_request_hook_answers_the_dialog(fake_api, project: Path, behavior: str) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": behavior, "message": "policy says no"},
        }
    }
    _claude_settings(
        project,
        {
            "hooks": {
                "PermissionRequest": _hook(
                    f"cat > request.json; echo '{json.dumps(answer)}'", "Bash"
                )
            }
        },
    )
    _bash_then_done(fake_api, "touch made.txt")
    proc = lathe(["-p", "go"], project, env_for(fake_api))  # headless: nobody would answer
    assert proc.returncode == 0, proc.stderr
    assert (project / "made.txt").exists() is (behavior == "allow")
    request = json.loads((project / "request.json").read_text())
    assert request["hook_event_name"] == "PermissionRequest"
    assert request["tool_name"] == "Bash"
    assert request["tool_input"]["command"] == "touch made.txt"
    assert isinstance(request["permission_suggestions"], list)
    if behavior == "deny":
        body = json.dumps(fake_api.requests[-1].body)
        assert "policy says no" in body


def test_cleanup_period_days_deletes_old_transcripts_only(fake_api, project: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"]) / "lathe"
    old = state / "projects" / "some-project" / "old-session.jsonl"
    recent = state / "projects" / "some-project" / "recent-session.jsonl"
    for path in (old, recent):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    ten_days_ago = time.time() - 10 * 86_400
    os.utime(old, (ten_days_ago, ten_days_ago))
    _claude_settings(project, {"cleanupPeriodDays": 7})
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api, LATHE_CLEANUP_SYNC="1"))
    assert proc.returncode == 0, proc.stderr
    assert not old.exists()
    assert recent.exists()


def _rewrite_to(tool_input: dict[str, object]) -> str:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": tool_input},
        }
    }
    return f"echo '{json.dumps(answer)}'"


@pytest.mark.parametrize(
    ("rewritten", "runs"),
    [
        ("rm keep.txt", False),  # a deny rule holds against the approver's rewrite
        ("touch other.txt", True),  # a rewrite that would only ask: the approval answered it
    ],
)
def test_an_approvals_rewritten_input_is_decided_again(
    fake_api, project: Path, rewritten: str, runs: bool
) -> None:
    (project / "keep.txt").write_text("keep")
    _claude_settings(
        project,
        {
            "permissions": {"deny": ["Bash(rm:*)"]},
            "hooks": {"PermissionRequest": _hook(_rewrite_to({"command": rewritten}), "Bash")},
        },
    )
    _bash_then_done(fake_api, "touch asked.txt")
    proc = lathe(["-p", "go", "--output-format", "json"], project, env_for(fake_api))
    assert proc.returncode == 0, proc.stderr
    assert (project / "keep.txt").exists()
    assert not (project / "asked.txt").exists()  # the rewrite replaced the call
    assert (project / "other.txt").exists() is runs
    denials = json.loads(proc.stdout)["permission_denials"]
    assert [d["tool_input"] for d in denials] == ([] if runs else [{"command": rewritten}])


def test_a_rewrite_into_a_protected_file_is_denied_and_hooks_never_see_it(
    fake_api, project: Path
) -> None:
    _claude_settings(
        project,
        {
            "hooks": {
                "PermissionRequest": _hook(
                    _rewrite_to({"file_path": "/proc/self/environ"}), "Read"
                ),
                "PostToolUse": _hook("cat >> post.json", "Read"),
            }
        },
    )
    (project / "asked.txt").write_text("x")
    fake_api.load(
        [
            turn_of([tool_use_block("Read", {"file_path": "/etc/hostname"}, "r1")]),
            text_turn("all done"),
        ]
    )
    env = env_for(fake_api, ANTHROPIC_API_KEY="sk-ant-test-4242-unique")
    proc = lathe(["-p", "go", "--output-format", "json"], project, env)
    assert proc.returncode == 0, proc.stderr
    denials = json.loads(proc.stdout)["permission_denials"]
    assert [d["tool_input"] for d in denials] == [{"file_path": "/proc/self/environ"}]
    assert not (project / "post.json").exists()  # nothing ran, so no PostToolUse
    assert "sk-ant-test-4242-unique" not in json.dumps(fake_api.bodies()[-1]["messages"])
