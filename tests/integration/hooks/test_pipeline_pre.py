"""PreToolUse hooks through the real pipeline: real scripts decide, the pipeline weighs them."""

from __future__ import annotations

from app.execution.pipeline import PipelineDeps
from app.hooks.results import HookMessage
from tests.integration.hooks.support import (
    ALLOW,
    ASK_MODE,
    ASK_RULE,
    DENY_RULE,
    FixedDecider,
    HookEnv,
    RecordingPrompter,
    on,
    read_json,
    run,
    tools,
)
from tests.support.fake_tools import Recorder, tool_use
from tools.decisions import DecisionReason, PermissionDecision

USER_YES = PermissionDecision.allow(DecisionReason("user", "yes"))


def deps_for(hk: HookEnv, hooks: dict, decider=ALLOW, prompter=None, recorder=None):  # type: ignore[no-untyped-def]
    return PipelineDeps(
        tools(recorder),
        hooks=hk.runner(hooks),
        decider=FixedDecider(decider),
        prompter=prompter,
    )


async def test_stdin_fields_env_and_cwd_as_claude_code_sends_them(hk: HookEnv) -> None:
    seen = hk.root / "seen.json"
    check = hk.py(
        "check",
        f"""
data = json.load(sys.stdin)
problems = []
def want(key, value):
    if data.get(key) != value:
        problems.append(f"{{key}}={{data.get(key)!r}}")
want("session_id", "sess-1")
want("transcript_path", {str(hk.root / "t.jsonl")!r})
want("cwd", {str(hk.project)!r})
want("permission_mode", "acceptEdits")
want("hook_event_name", "PreToolUse")
want("tool_name", "UnsafeSleep")
want("tool_use_id", "t1")
# As the model sent it (no defaults filled in, as Claude Code), the path made absolute.
want("tool_input", {{"path": {str(hk.project / "sub" / "f.txt")!r}}})
for var in ("CLAUDE_PROJECT_DIR", "LATHE_PROJECT_DIR"):
    if os.environ.get(var) != {str(hk.project)!r}:
        problems.append(var)
if os.getcwd() != {str(hk.project)!r}:
    problems.append("cwd " + os.getcwd())
open({str(seen)!r}, "w").write(json.dumps(data))
if problems:
    print("bad stdin: " + ", ".join(problems), file=sys.stderr)
    sys.exit(2)
""",
    )
    hk.mode[0] = "acceptEdits"
    rec = Recorder()
    deps = deps_for(hk, {"PreToolUse": [on("UnsafeSleep", check)]}, recorder=rec)
    out = await run(deps, hk.context(), tool_use("t1", "UnsafeSleep", path="sub/f.txt"))
    assert not out.is_error, out.result_block
    assert out.ran and len(rec.started) == 1
    assert set(read_json(seen)) == {
        "session_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    }
    # The call itself keeps the model's original (relative) input.
    assert out.input["path"] == "sub/f.txt"


async def test_exit_2_denies_and_the_model_reads_stderr(hk: HookEnv) -> None:
    block = hk.sh("block", 'cat >/dev/null\necho "rm is not allowed here" >&2\nexit 2\n')
    rec = Recorder()
    deps = deps_for(hk, {"PreToolUse": [on("*", block)]}, recorder=rec)
    out = await run(deps, hk.context(), tool_use("t1", "UnsafeSleep"))
    assert out.is_error and not out.ran and rec.started == []
    content = out.result_block["content"]
    assert "rm is not allowed here" in content
    assert "PreToolUse:UnsafeSleep hook error" in content
    assert out.decision is not None and out.decision.reason is not None
    assert out.decision.reason.kind == "hook"


async def test_json_allow_skips_the_mode_prompt(hk: HookEnv) -> None:
    allow = hk.sh(
        "allow",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
 "permissionDecisionReason": "vetted"}}'
""",
    )
    prompter = RecordingPrompter()
    deps = deps_for(hk, {"PreToolUse": [on("", allow)]}, ASK_MODE, prompter)
    out = await run(deps, hk.context(), tool_use("t1", "UnsafeSleep"))
    assert out.ran and not out.is_error
    assert prompter.prompts == []
    assert out.decision is not None and out.decision.reason is not None
    assert out.decision.reason.text == "vetted"


async def test_hook_allow_never_overrides_a_deny_rule_or_an_ask_rule(hk: HookEnv) -> None:
    allow = hk.sh(
        "allow",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'
""",
    )
    hooks = {"PreToolUse": [on("*", allow)]}
    out = await run(deps_for(hk, hooks, DENY_RULE), hk.context(), tool_use("t1", "UnsafeSleep"))
    assert not out.ran and out.result_block["content"] == "Denied by rule X"

    prompter = RecordingPrompter()
    out = await run(
        deps_for(hk, hooks, ASK_RULE, prompter), hk.context(), tool_use("t2", "UnsafeSleep")
    )
    assert not out.ran and len(prompter.prompts) == 1


async def test_json_deny_reason_reaches_the_model(hk: HookEnv) -> None:
    deny = hk.py(
        "deny",
        """json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "permissionDecision": "deny", "permissionDecisionReason": "use the safe wrapper"}}))
""",
    )
    out = await run(
        deps_for(hk, {"PreToolUse": [on("", deny)]}), hk.context(), tool_use("t1", "SafeSleep")
    )
    assert not out.ran and out.result_block["content"] == "use the safe wrapper"


async def test_aggregation_deny_beats_defer_beats_ask_beats_allow(hk: HookEnv) -> None:
    def decision(name: str, value: str) -> str:
        return hk.sh(
            name,
            f"""cat >/dev/null
echo '{{"hookSpecificOutput": {{"permissionDecision": "{value}", "permissionDecisionReason": "{name}"}}}}'
""",
        )

    allow, ask, defer, deny = (decision(n, n) for n in ("allow", "ask", "defer", "deny"))
    ctx = hk.context()
    # allow + ask: the user is asked even though the rules allow.
    prompter = RecordingPrompter(USER_YES)
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", allow, ask)]}, ALLOW, prompter),
        ctx,
        tool_use("a", "UnsafeSleep"),
    )
    assert out.ran and len(prompter.prompts) == 1 and "ask" in prompter.prompts[0].message
    # ask + defer: defer wins, the hooks give no opinion, the rules (allow) decide.
    prompter = RecordingPrompter()
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", ask, defer)]}, ALLOW, prompter),
        ctx,
        tool_use("b", "UnsafeSleep"),
    )
    assert out.ran and prompter.prompts == []
    # defer + deny + allow: deny.
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", allow, defer), on("*", deny)]}),
        ctx,
        tool_use("c", "UnsafeSleep"),
    )
    assert not out.ran and out.result_block["content"] == "deny"


async def test_legacy_decision_block_and_approve(hk: HookEnv) -> None:
    block = hk.sh(
        "block", 'cat >/dev/null\necho \'{"decision": "block", "reason": "legacy no"}\'\n'
    )
    approve = hk.sh("approve", 'cat >/dev/null\necho \'{"decision": "approve"}\'\n')
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", block)]}), hk.context(), tool_use("a", "UnsafeSleep")
    )
    assert not out.ran and out.result_block["content"] == "legacy no"
    prompter = RecordingPrompter()
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", approve)]}, ASK_MODE, prompter),
        hk.context(),
        tool_use("b", "UnsafeSleep"),
    )
    assert out.ran and prompter.prompts == []


async def test_updated_input_is_what_runs_and_observers_saw_it(hk: HookEnv) -> None:
    rewrite = hk.py(
        "rewrite",
        """data = json.load(sys.stdin)
new = dict(data["tool_input"], path="rewritten.txt")
print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": new}}))
""",
    )
    rec = Recorder()
    deps = deps_for(hk, {"PreToolUse": [on("UnsafeSleep", rewrite)]}, ASK_MODE, recorder=rec)
    out = await run(deps, hk.context(), tool_use("t1", "UnsafeSleep", path="orig.txt"))
    assert out.ran
    tool = next(t for t in deps.tools if t.name == "UnsafeSleep")
    assert tool.calls[-1].path == "rewritten.txt"  # type: ignore[attr-defined]


async def test_invalid_updated_input_is_refused(hk: HookEnv) -> None:
    bad = hk.sh(
        "bad",
        """cat >/dev/null
echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"ms": "lots"}}}'
""",
    )
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", bad)]}), hk.context(), tool_use("t1", "UnsafeSleep")
    )
    assert not out.ran and "updatedInput is invalid" in out.result_block["content"]


async def test_context_system_message_and_continue_false(hk: HookEnv) -> None:
    hook = hk.sh(
        "ctx",
        """cat >/dev/null
echo '{"continue": false, "stopReason": "enough for today", "systemMessage": "heads up",
 "hookSpecificOutput": {"additionalContext": "the repo is frozen"}}'
""",
    )
    out = await run(
        deps_for(hk, {"PreToolUse": [on("*", hook)]}), hk.context(), tool_use("t1", "SafeSleep")
    )
    assert out.ran
    assert out.prevent_continuation == "enough for today"
    assert [n.text for n in out.notices] == ["heads up"]
    assert any("the repo is frozen" in b["text"] for b in out.extra_content)


async def test_matchers_exact_alternatives_and_full_regex(hk: HookEnv) -> None:
    marks = hk.root / "marks"
    marks.mkdir()

    def mark(name: str) -> str:
        return hk.sh(name, f"cat >/dev/null\necho {name} >> {marks}/log\n")

    hooks = {
        "PreToolUse": [
            on("SafeSleep|Picky", mark("alt")),
            on("Safe", mark("prefix_only")),  # exact name: never matches SafeSleep
            on(".*Sleep", mark("regex")),
            on("Sleep", mark("exact_sleep")),
            on("Safe.*p", mark("regex_full")),
            # A regex is searched for in the name, as Claude Code 2.1.332 does (ext-r5 F15).
            on("Safe.", mark("regex_partial")),
            on("*", mark("star")),
        ]
    }
    await run(deps_for(hk, hooks), hk.context(), tool_use("t1", "SafeSleep"))
    ran = sorted((marks / "log").read_text().split())
    assert ran == ["alt", "regex", "regex_full", "regex_partial", "star"]


async def test_matching_hooks_run_in_parallel(hk: HookEnv) -> None:
    # Each hook waits for the other's marker: run one after the other, both would give up.
    def meet(me: str, other: str) -> str:
        return hk.sh(
            me,
            f"""cat >/dev/null
touch {hk.root}/{me}.ready
i=0
while [ ! -e {hk.root}/{other}.ready ]; do
  i=$((i+1)); if [ $i -gt 200 ]; then echo "{other} never ran alongside" >&2; exit 2; fi
  sleep 0.05
done
""",
        )

    hooks = {"PreToolUse": [on("*", meet("a", "b")), on("*", meet("b", "a"))]}
    out = await run(deps_for(hk, hooks), hk.context(), tool_use("t1", "SafeSleep"))
    assert out.ran, out.result_block


async def test_the_same_command_twice_runs_once(hk: HookEnv) -> None:
    log = hk.root / "count"
    hook = hk.sh("count", f"cat >/dev/null\necho x >> {log}\n")
    hooks = {"PreToolUse": [on("*", hook), on("SafeSleep", hook)]}
    await run(deps_for(hk, hooks), hk.context(), tool_use("t1", "SafeSleep"))
    assert log.read_text().split() == ["x"]


async def test_untrusted_project_hooks_do_not_run(hk: HookEnv) -> None:
    block = hk.sh("block", "cat >/dev/null\necho nope >&2\nexit 2\n")
    runner = hk.runner({"PreToolUse": [on("*", block)]}, source="project", trusted=False)
    deps = PipelineDeps(tools(), hooks=runner, decider=FixedDecider(ALLOW))
    out = await run(deps, hk.context(), tool_use("t1", "SafeSleep"))
    assert out.ran
    assert runner.config.ignored and not runner.config.handlers


def _notice_texts(notices: tuple[HookMessage, ...]) -> str:
    return "\n".join(n.text for n in notices)
