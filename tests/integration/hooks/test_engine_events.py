"""UserPromptSubmit, Stop, SessionStart and SessionEnd hooks with real scripts."""

from __future__ import annotations

from tests.integration.hooks.support import HookEnv, on, read_json


async def test_prompt_hook_reads_the_prompt_and_blocks_with_exit_2(hk: HookEnv) -> None:
    guard = hk.py(
        "guard",
        """data = json.load(sys.stdin)
assert data["hook_event_name"] == "UserPromptSubmit", data
if "password" in data["prompt"]:
    print("prompts must not contain secrets", file=sys.stderr)
    sys.exit(2)
""",
    )
    runner = hk.runner({"UserPromptSubmit": [on("", guard)]})
    blocked = await runner.user_prompt_submit("my password is hunter2")
    assert blocked.blocked and blocked.reason == "prompts must not contain secrets"
    assert blocked.additional_context == ()
    fine = await runner.user_prompt_submit("list the files")
    assert not fine.blocked and fine.messages == ()


async def test_prompt_hook_plain_stdout_and_json_become_context(hk: HookEnv) -> None:
    plain = hk.sh("plain", "cat >/dev/null\necho 'branch: main'\n")
    as_json = hk.sh(
        "json",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket ABC-1"}}'
""",
    )
    result = await hk.runner({"UserPromptSubmit": [on("", plain, as_json)]}).user_prompt_submit(
        "hi"
    )
    assert not result.blocked
    assert result.additional_context == ("branch: main", "ticket ABC-1")


async def test_prompt_hook_json_block_and_continue_false(hk: HookEnv) -> None:
    block = hk.sh("block", 'cat >/dev/null\necho \'{"decision": "block", "reason": "not now"}\'\n')
    result = await hk.runner({"UserPromptSubmit": [on("", block)]}).user_prompt_submit("hi")
    assert result.blocked and result.reason == "not now"
    stop = hk.sh("stop", 'cat >/dev/null\necho \'{"continue": false, "stopReason": "quota"}\'\n')
    result = await hk.runner({"UserPromptSubmit": [on("", stop)]}).user_prompt_submit("hi")
    assert result.blocked and result.reason == "quota"


async def test_stop_hook_makes_the_model_continue_once(hk: HookEnv) -> None:
    # The usual guard of a Claude Code Stop hook: only block when not already continuing.
    hook = hk.py(
        "tests_pass",
        """data = json.load(sys.stdin)
if not data["stop_hook_active"]:
    print("run the tests before stopping", file=sys.stderr)
    sys.exit(2)
""",
    )
    runner = hk.runner({"Stop": [on("", hook)]})
    first = await runner.stop(stop_hook_active=False)
    assert first.should_continue and first.reason == "run the tests before stopping"
    second = await runner.stop(stop_hook_active=True)
    assert not second.should_continue


async def test_stop_hook_json_block_and_continue_false_wins(hk: HookEnv) -> None:
    block = hk.sh(
        "block", 'cat >/dev/null\necho \'{"decision": "block", "reason": "keep going"}\'\n'
    )
    result = await hk.runner({"Stop": [on("", block)]}).stop(False)
    assert result.should_continue and result.reason == "keep going"
    halt = hk.sh("halt", 'cat >/dev/null\necho \'{"continue": false, "stopReason": "done"}\'\n')
    result = await hk.runner({"Stop": [on("", block, halt)]}).stop(False)
    assert not result.should_continue and result.prevent_continuation == "done"


async def test_stop_hook_failing_is_a_notice_not_a_continue(hk: HookEnv) -> None:
    result = await hk.runner({"Stop": [on("", hk.sh("bad", "exit 3\n"))]}).stop(False)
    assert not result.should_continue
    assert [m.level for m in result.messages] == ["error"]
    assert "failed with exit code 3" in result.messages[0].text


async def test_session_start_matches_the_source_and_adds_context(hk: HookEnv) -> None:
    seen = hk.root / "start.json"
    hook = hk.sh("start", f"cat > {seen}\necho 'remember: use uv'\n")
    runner = hk.runner({"SessionStart": [on("startup|resume", hook)]})
    result = await runner.session_start("startup")
    assert result.additional_context == ("remember: use uv",)
    data = read_json(seen)
    assert data["source"] == "startup" and data["hook_event_name"] == "SessionStart"
    assert (await runner.session_start("clear")).additional_context == ()


async def test_session_end_gets_the_reason(hk: HookEnv) -> None:
    seen = hk.root / "end.json"
    hook = hk.sh("end", f"cat > {seen}\n")
    result = await hk.runner({"SessionEnd": [on("", hook)]}).session_end("prompt_input_exit")
    assert result.messages == ()
    data = read_json(seen)
    assert data["reason"] == "prompt_input_exit" and data["session_id"] == "sess-1"


async def test_settings_env_reaches_the_hook(hk: HookEnv) -> None:
    seen = hk.root / "env"
    hook = hk.sh("env", f'echo "$TEAM_NAME" > {seen}\n')
    await hk.runner({"SessionEnd": [on("", hook)]}, env={"TEAM_NAME": "infra"}).session_end("other")
    assert seen.read_text().strip() == "infra"
