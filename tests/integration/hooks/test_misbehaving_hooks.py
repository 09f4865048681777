"""Hooks that hang, flood, crash, lie or do not exist: a clear notice, never a crash, never an allow.

"Never a silent allow" is checked the same way everywhere: the rules say "ask", there is no one to
ask (the headless prompter denies), so a broken hook must end in a denial, not a run.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from app.config.hooks import HookSource, parse_hook_sources
from app.execution.interfaces import HookToolCall
from app.execution.pipeline import PipelineDeps
from app.execution.texts import REJECT_MESSAGE
from app.hooks.process import run_command
from app.hooks.results import HookCancelled
from app.hooks.runner import CommandHookRunner
from tests.integration.hooks.support import (
    ASK_MODE,
    FixedDecider,
    HookEnv,
    on,
    pid_alive,
    run,
    tools,
)
from tests.support.fake_tools import tool_use
from tools.abort import AbortController


async def pre(hk: HookEnv, hooks: dict, **ctx_kw: object):  # type: ignore[no-untyped-def,type-arg]
    deps = PipelineDeps(tools(), hooks=hk.runner(hooks), decider=FixedDecider(ASK_MODE))
    return await run(deps, hk.context(**ctx_kw), tool_use("t1", "UnsafeSleep"))


def notices(out) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(f"[{n.level}] {n.text}" for n in out.notices)


async def wait_until(predicate, limit_s: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    """Bounded polling for an effect in another process (not a timing assertion)."""
    for _ in range(int(limit_s / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


async def test_hanging_hook_is_killed_with_its_whole_process_group(hk: HookEnv) -> None:
    pidfile = hk.root / "child.pid"
    hang = hk.sh("hang", f"sleep 30 &\necho $! > {pidfile}\nwait\n")
    out = await pre(hk, {"PreToolUse": [on("*", hang, timeout=0.5)]})
    assert not out.ran and out.permission_denial is not None
    assert "[error]" in notices(out) and "timed out after 0.5 s and was killed" in notices(out)
    child = int(pidfile.read_text())
    assert await wait_until(lambda: not pid_alive(child)), "the hook's child survived"


async def test_five_megabytes_of_output_are_capped(hk: HookEnv) -> None:
    flood = hk.sh(
        "flood",
        "cat >/dev/null\nhead -c 5000000 /dev/zero | tr '\\0' x\necho\nhead -c 5000000 /dev/zero | tr '\\0' y >&2\n",
    )
    out = await pre(hk, {"PreToolUse": [on("*", flood)]})
    text = notices(out)
    assert "printed more than 1 MB on stdout; the rest was discarded" in text
    assert "printed more than 1 MB on stderr" in text
    assert not out.ran and out.permission_denial is not None


async def test_huge_json_is_reported_not_trusted(hk: HookEnv) -> None:
    # A deny hidden after 5 MB: the JSON is cut at the cap, so it cannot be read; not an allow.
    flood = hk.py(
        "flood",
        """sys.stdin.read()
sys.stdout.write('{"pad": "' + "x" * 5_000_000 + '", "hookSpecificOutput": {"permissionDecision": "allow"}}')
""",
    )
    out = await pre(hk, {"PreToolUse": [on("*", flood)]})
    assert "printed invalid JSON" in notices(out)
    assert not out.ran


async def test_missing_executable(hk: HookEnv) -> None:
    out = await pre(hk, {"PreToolUse": [on("*", str(hk.root / "nowhere" / "hook.sh"))]})
    assert "command not found (exit code 127)" in notices(out)
    assert "hook.sh" in notices(out)
    assert not out.ran


async def test_not_executable_file(hk: HookEnv) -> None:
    path = hk.root / "plain.sh"
    path.write_text("#!/bin/sh\nexit 0\n")
    out = await pre(hk, {"PreToolUse": [on("*", str(path))]})
    assert "failed with exit code 126" in notices(out)
    assert not out.ran


async def test_crashing_python_hook_shows_its_traceback(hk: HookEnv) -> None:
    crash = hk.py("crash", "raise RuntimeError('kaboom in hook')\n")
    out = await pre(hk, {"PreToolUse": [on("*", crash)]})
    text = notices(out)
    assert "failed with exit code 1" in text and "kaboom in hook" in text
    assert not out.ran


async def test_hook_killed_by_a_signal(hk: HookEnv) -> None:
    out = await pre(hk, {"PreToolUse": [on("*", hk.sh("die", "kill -9 $$\n"))]})
    assert "crashed (killed by signal 9" in notices(out)
    assert not out.ran


async def test_invalid_json_and_wrong_field_types(hk: HookEnv) -> None:
    broken = hk.sh("broken", "cat >/dev/null\necho '{not json'\n")
    wrong = hk.sh(
        "wrong",
        """cat >/dev/null
echo '{"continue": "no", "systemMessage": 3, "hookSpecificOutput": {"permissionDecision": "Allow"}}'
""",
    )
    out = await pre(hk, {"PreToolUse": [on("*", broken, wrong)]})
    text = notices(out)
    assert "printed invalid JSON" in text
    assert "`continue` must be true or false" in text
    assert "`systemMessage` must be a string" in text
    assert "`permissionDecision` must be one of allow, deny, ask, defer, not 'Allow'" in text
    assert out.prevent_continuation is None  # the malformed `continue` was ignored
    assert not out.ran


async def test_hook_that_never_reads_stdin_and_exits_at_once(hk: HookEnv) -> None:
    # A big tool_input and a hook that exits without reading: no broken pipe may escape.
    quick = hk.sh("quick", "exit 0\n")
    deps = PipelineDeps(tools(), hooks=hk.runner({"PreToolUse": [on("*", quick)]}))
    out = await run(deps, hk.context(), tool_use("t1", "SafeSleep", path="p" * 2_000_000))
    assert out.ran and out.notices == ()


async def test_abort_kills_a_running_pre_hook_and_the_call_is_rejected(hk: HookEnv) -> None:
    started = hk.root / "started"
    pidfile = hk.root / "child.pid"
    slow = hk.sh(
        "slow", f"cat >/dev/null\nsleep 30 &\necho $! > {pidfile}\ntouch {started}\nwait\n"
    )
    controller = AbortController()
    task = asyncio.ensure_future(pre(hk, {"PreToolUse": [on("*", slow)]}, abort=controller.signal))
    assert await wait_until(started.exists)
    controller.abort("user_interrupt")
    out = await asyncio.wait_for(task, 10)
    assert not out.ran and out.result_block["content"] == REJECT_MESSAGE
    child = int(pidfile.read_text())
    assert await wait_until(lambda: not pid_alive(child))


async def test_abort_during_post_hook_yields_cancelled(hk: HookEnv) -> None:
    started = hk.root / "started"
    slow = hk.sh("slow", f"cat >/dev/null\ntouch {started}\nsleep 30\n")
    runner = hk.runner({"PostToolUse": [on("*", slow)]})
    controller = AbortController()
    ctx = hk.context(abort=controller.signal)
    task = asyncio.ensure_future(runner.post_tool_use(HookToolCall("X", {}, "id"), "r", ctx))
    assert await wait_until(started.exists)
    controller.abort("user_interrupt")
    items = await asyncio.wait_for(task, 10)
    assert [type(i) for i in items] == [HookCancelled]


async def test_project_dir_that_vanished_is_a_notice(hk: HookEnv, tmp_path: Path) -> None:
    hook = hk.sh("ok", "exit 0\n")
    config = parse_hook_sources([HookSource("user", "u.toml", {"Stop": [on("", hook)]})], True)
    runner = CommandHookRunner(
        config,
        session_id="s",
        transcript_path="t",
        cwd=str(tmp_path),
        project_dir=str(tmp_path / "gone"),
        permission_mode=lambda: "default",
    )
    result = await runner.stop(False)
    assert not result.should_continue
    assert [m.level for m in result.messages] == ["error"]
    assert "could not be started" in result.messages[0].text


async def test_already_aborted_turn_starts_no_hook(hk: HookEnv) -> None:
    marker = hk.root / "ran"
    hook = hk.sh("h", f"touch {marker}\n")
    controller = AbortController()
    controller.abort("user_interrupt")
    runner = hk.runner({"PostToolUseFailure": [on("*", hook)]})
    items = await runner.post_tool_use_failure(
        HookToolCall("X", {}, "id"), "err", hk.context(abort=controller.signal)
    )
    assert [type(i) for i in items] == [HookCancelled]
    assert not marker.exists()


async def test_background_child_holding_the_pipes_does_not_hang_the_hook(hk: HookEnv) -> None:
    pidfile = hk.root / "daemon.pid"
    result = await run_command(
        f"echo done; sleep 30 & echo $! > {pidfile}",
        b"{}",
        cwd=str(hk.project),
        env={"PATH": os.environ["PATH"]},
        timeout_s=30,
        pipe_grace_s=0.2,
    )
    assert result.exit_code == 0 and not result.timed_out
    assert result.stdout == "done\n"
    assert await wait_until(lambda: not pid_alive(int(pidfile.read_text())))
