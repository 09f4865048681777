"""PostToolUse / PostToolUseFailure hooks through the real pipeline, including the MCP order."""

from __future__ import annotations

from app.execution.interfaces import HookToolCall
from app.execution.pipeline import PipelineDeps
from app.hooks.results import HookBlockingError, HookStoppedContinuation
from tests.integration.hooks.support import (
    ALLOW,
    FixedDecider,
    HookEnv,
    on,
    read_json,
    run,
    tools,
)
from tests.support.fake_tools import tool_use


def deps_for(hk: HookEnv, hooks: dict) -> PipelineDeps:  # type: ignore[type-arg]
    return PipelineDeps(tools(), hooks=hk.runner(hooks), decider=FixedDecider(ALLOW))


async def test_post_hook_gets_the_response_and_exit_2_is_feedback_for_the_model(
    hk: HookEnv,
) -> None:
    seen = hk.root / "post.json"
    hook = hk.py(
        "post",
        f"""data = json.load(sys.stdin)
open({str(seen)!r}, "w").write(json.dumps(data))
print("lint found 3 problems", file=sys.stderr)
sys.exit(2)
""",
    )
    out = await run(
        deps_for(hk, {"PostToolUse": [on("SafeSleep", hook)]}),
        hk.context(),
        tool_use("t1", "SafeSleep"),
    )
    data = read_json(seen)
    assert data["hook_event_name"] == "PostToolUse"
    assert data["tool_response"] == "SafeSleep done "
    assert data["tool_use_id"] == "t1" and data["tool_name"] == "SafeSleep"
    # The result stands (the tool already ran); the feedback goes beside it.
    assert out.ran and not out.is_error
    assert out.result_block["content"] == "SafeSleep done "
    texts = [b["text"] for b in out.extra_content]
    assert any(
        "PostToolUse hook feedback for SafeSleep" in t and "lint found 3 problems" in t
        for t in texts
    )


async def test_post_decision_block_context_and_continue_false(hk: HookEnv) -> None:
    hook = hk.sh(
        "post",
        """cat >/dev/null
echo '{"decision": "block", "reason": "format the file", "continue": false, "stopReason": "halt",
 "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ran formatter"}}'
""",
    )
    out = await run(
        deps_for(hk, {"PostToolUse": [on("*", hook)]}), hk.context(), tool_use("t1", "SafeSleep")
    )
    texts = "\n".join(b["text"] for b in out.extra_content)
    assert "format the file" in texts and "ran formatter" in texts
    assert out.prevent_continuation == "halt"


async def test_failure_hook_gets_the_error(hk: HookEnv) -> None:
    seen = hk.root / "fail.json"
    post = hk.sh("post", f"cat > {hk.root}/post-should-not-run\n")
    fail = hk.sh("fail", f"cat > {seen}\n")
    hooks = {"PostToolUse": [on("*", post)], "PostToolUseFailure": [on("*", fail)]}
    out = await run(deps_for(hk, hooks), hk.context(), tool_use("t1", "SafeSleep", fail=True))
    assert out.is_error
    data = read_json(seen)
    assert data["hook_event_name"] == "PostToolUseFailure"
    assert data["error"] == "SafeSleep failed on purpose"
    assert data["is_interrupt"] is False
    assert not (hk.root / "post-should-not-run").exists()


async def test_mcp_output_rewritten_before_it_is_recorded(hk: HookEnv) -> None:
    hook = hk.sh(
        "redact",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "[redacted]"}}'
""",
    )
    hooks = {"PostToolUse": [on("mcp__.*", hook)]}
    out = await run(deps_for(hk, hooks), hk.context(), tool_use("t1", "mcp__srv__echo"))
    assert out.result_block["content"] == "[redacted]"


async def test_mcp_output_rewrite_is_ignored_for_builtin_tools(hk: HookEnv) -> None:
    hook = hk.sh(
        "redact",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"updatedMCPToolOutput": "[redacted]"}}'
""",
    )
    out = await run(
        deps_for(hk, {"PostToolUse": [on("*", hook)]}), hk.context(), tool_use("t1", "SafeSleep")
    )
    assert out.result_block["content"] == "SafeSleep done "
    assert any("updatedMCPToolOutput ignored" in n.text for n in out.notices)


async def test_runner_post_items_directly(hk: HookEnv) -> None:
    hook = hk.sh("p", "cat >/dev/null\necho bad >&2\nexit 2\n")
    stop = hk.sh("s", "cat >/dev/null\necho '{\"continue\": false}'\n")
    runner = hk.runner({"PostToolUse": [on("*", hook, stop)]})
    items = await runner.post_tool_use(HookToolCall("X", {}, "id"), {"k": 1}, hk.context())
    kinds = sorted(type(i).__name__ for i in items)
    assert kinds == sorted([HookBlockingError.__name__, HookStoppedContinuation.__name__])
