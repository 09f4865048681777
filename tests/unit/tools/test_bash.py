"""Bash: real commands in temporary folders."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tools.abort import AbortController
from tools.base import InputError, ToolContext, ToolOptions, ToolProgress
from tools.bash import BashInput, BashResult, BashTool
from tools.persisted import result_path
from tools.shell import is_read_only_command


def make_ctx(tmp_path: Path, **kw: Any) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    base: dict[str, Any] = dict(
        cwd=str(work),
        project_dir=str(work),
        working_dirs=(str(work),),
        session_dir=str(tmp_path / "session"),
        tool_use_id="toolu_1",
    )
    base.update(kw)
    return ToolContext(**base)


async def run(
    ctx: ToolContext, progress: list[ToolProgress] | None = None, **raw: Any
) -> tuple[BashResult, bool, Any]:
    tool = BashTool()
    parsed = tool.parse_input(raw)
    check = await tool.validate_input(parsed, ctx)
    assert check.ok, check.message
    sink = progress if progress is not None else []
    result = await tool.call(parsed, ctx, None, {}, sink.append)  # type: ignore[arg-type]
    assert isinstance(result.data, BashResult)
    return result.data, result.is_error, result.context_modifier


def pid_alive(pid: int) -> bool:
    """A zombie counts as dead: it runs nothing and only waits for its parent to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_stdout_stderr_and_success(tmp_path: Path) -> None:
    data, is_error, _ = await run(make_ctx(tmp_path), command="echo out; echo err >&2")
    assert not is_error
    assert data.text == "out\nerr"
    assert data.exit_code == 0


async def test_nonzero_exit_is_error_with_code(tmp_path: Path) -> None:
    data, is_error, _ = await run(make_ctx(tmp_path), command="echo partial; exit 3")
    assert is_error
    assert data.exit_code == 3
    assert data.text.startswith("partial")
    assert "Exit code 3" in data.text
    assert BashTool.cancels_siblings_on_error


async def test_no_output(tmp_path: Path) -> None:
    data, is_error, _ = await run(make_ctx(tmp_path), command="true")
    assert not is_error and data.text == "(No output)"


@pytest.mark.parametrize(
    "bad", ["echo a\rb", "echo \x1b[2Khidden", "ls\x00", "echo \x7f", "a\u202eb"]
)
async def test_control_characters_refused(tmp_path: Path, bad: str) -> None:
    tool = BashTool()
    check = await tool.validate_input(tool.parse_input({"command": bad}), make_ctx(tmp_path))
    assert not check.ok
    assert "control character" in check.message


async def test_tab_and_newline_allowed(tmp_path: Path) -> None:
    data, is_error, _ = await run(make_ctx(tmp_path), command="printf 'a\\tb\\n'\necho\tc")
    assert not is_error
    assert data.text == "a\tb\nc"


async def test_bad_inputs_from_the_model(tmp_path: Path) -> None:
    tool = BashTool()
    assert tool.parse_input({"command": "ls", "timeout": "5000"}).timeout == 5000
    assert tool.parse_input({"command": "ls", "run_in_background": "true"}).run_in_background
    with pytest.raises(InputError, match="timeout"):
        tool.parse_input({"command": "ls", "timeout": "soon"})
    with pytest.raises(InputError, match="command"):
        tool.parse_input({})
    with pytest.raises(InputError, match="unexpected"):
        tool.parse_input({"command": "ls", "cwd": "/"})
    ctx = make_ctx(tmp_path)
    assert not (await tool.validate_input(tool.parse_input({"command": "  "}), ctx)).ok
    bad_timeout = tool.parse_input({"command": "ls", "timeout": -5})
    assert not (await tool.validate_input(bad_timeout, ctx)).ok


async def test_cwd_persists_but_env_does_not(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (Path(ctx.cwd) / "sub").mkdir()
    _, _, modifier = await run(ctx, command="cd sub && export LATHE_TEST_VAR=1")
    assert modifier is not None
    ctx = modifier(ctx)
    assert ctx.cwd == str((Path(ctx.project_dir) / "sub").resolve())
    data, _, modifier = await run(ctx, command='pwd; echo "[${LATHE_TEST_VAR:-unset}]"')
    assert data.text == f"{ctx.cwd}\n[unset]"
    assert modifier is None


async def test_cwd_learned_even_after_failure(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (Path(ctx.cwd) / "sub").mkdir()
    _, is_error, modifier = await run(ctx, command="cd sub; exit 1")
    assert is_error and modifier is not None
    assert modifier(ctx).cwd.endswith("/sub")


async def test_cd_outside_working_folders_is_reset(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    data, _, modifier = await run(ctx, command="cd /")
    assert modifier is None
    assert "Shell cwd was reset to" in data.text


async def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    pidfile = tmp_path / "child.pid"
    data, is_error, _ = await run(
        ctx,
        command=f"sleep 60 & echo $! > {pidfile}; echo started; wait",
        timeout=700,
    )
    assert is_error and data.timed_out
    assert "Command timed out after 0.7s" in data.text
    assert "started" in data.text
    assert not pid_alive(int(pidfile.read_text()))


async def test_timeout_clamped_to_maximum(tmp_path: Path) -> None:
    options = ToolOptions(bash_default_timeout_ms=100_000, bash_max_timeout_ms=500)
    data, is_error, _ = await run(
        make_ctx(tmp_path, options=options), command="sleep 30", timeout=10**12
    )
    assert is_error and data.timed_out


async def test_sigterm_ignored_then_sigkill(tmp_path: Path) -> None:
    pidfile = tmp_path / "stubborn.pid"
    script = f"trap '' TERM; echo $$ > {pidfile}; while :; do sleep 0.05; done"
    options = ToolOptions(extra={"bash_kill_grace_s": 0.3})
    data, is_error, _ = await run(
        make_ctx(tmp_path, options=options), command=f"bash -c {script!r} & wait", timeout=500
    )
    assert is_error and data.timed_out
    assert not pid_alive(int(pidfile.read_text()))


async def test_abort_kills_the_group(tmp_path: Path) -> None:
    controller = AbortController()
    ctx = make_ctx(tmp_path, abort=controller.signal)
    pidfile = tmp_path / "child.pid"
    progress: list[ToolProgress] = []
    task = asyncio.ensure_future(
        run(ctx, progress, command=f"sleep 60 & echo $! > {pidfile}; echo ready; wait")
    )
    for _ in range(400):
        if any("ready" in p.output for p in progress):
            break
        await asyncio.sleep(0.025)
    controller.abort("user_interrupt")
    data, is_error, _ = await task
    assert is_error and data.interrupted
    assert "interrupted" in data.text
    assert not pid_alive(int(pidfile.read_text()))


async def test_already_aborted_does_not_run(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort("user_interrupt")
    marker = tmp_path / "ran"
    data, is_error, _ = await run(
        make_ctx(tmp_path, abort=controller.signal), command=f"sleep 1; touch {marker}"
    )
    assert is_error and data.interrupted
    assert not marker.exists()


async def test_leftover_background_children_are_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "bg.pid"
    data, is_error, _ = await run(make_ctx(tmp_path), command=f"sleep 60 & echo $! > {pidfile}")
    assert not is_error
    assert "left running were stopped" in data.text
    assert not pid_alive(int(pidfile.read_text()))


async def test_large_output_is_persisted_in_full(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    count = 20_000
    data, is_error, _ = await run(ctx, command=f"seq 1 {count}; echo tail-err >&2")
    assert not is_error
    path = result_path(ctx.session_dir, ctx.tool_use_id)
    expected = "\n".join(str(i) for i in range(1, count + 1)) + "\n\ntail-err\n"
    content = path.read_text()
    assert content == expected
    assert data.text.startswith(
        f"<persisted-output>Output too large ({len(content)} characters). "
        f"Full output saved to: {path}\n\nPreview (first 2KB):\n1\n2\n3\n"
    )
    assert data.text.endswith("\n...</persisted-output>")
    assert len(data.text) < 3000
    assert data.persisted_path == str(path)


async def test_output_just_under_the_limit_stays_inline(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    data, _, _ = await run(ctx, command="head -c 29000 /dev/zero | tr '\\0' x")
    assert data.text == "x" * 29000
    assert not result_path(ctx.session_dir, ctx.tool_use_id).exists()


async def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    data, is_error, _ = await run(make_ctx(tmp_path), command="printf 'a\\xffb\\xc3\\xa9'")
    assert not is_error and data.text == "a\ufffdbé"


async def test_progress_carries_all_output_in_order(tmp_path: Path) -> None:
    progress: list[ToolProgress] = []
    await run(make_ctx(tmp_path), progress, command="for i in $(seq 1 300); do echo line$i; done")
    joined = "".join(p.output for p in progress)
    assert joined == "".join(f"line{i}\n" for i in range(1, 301))
    assert progress[-1].text == "line300"


async def test_missing_cwd_falls_back_to_project(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    gone = Path(ctx.cwd) / "gone"
    gone.mkdir()
    ctx = ToolContext(**{**ctx.__dict__, "cwd": str(gone)})
    gone.rmdir()
    data, _, modifier = await run(ctx, command="pwd")
    assert "no longer exists" in data.text
    assert modifier is not None and modifier(ctx).cwd == ctx.project_dir


def test_declarations_follow_the_read_only_analysis() -> None:
    tool = BashTool()
    for command in ("ls -la", "rm -rf build", "git status", "echo hi > f"):
        parsed = BashInput(command=command)
        assert tool.is_read_only(parsed) == is_read_only_command(command)
        assert tool.is_concurrency_safe(parsed) == is_read_only_command(command)
    assert tool.interrupt_behavior() == "block"
    assert tool.max_result_size_chars == 30_000
    assert tool.permission_subject(BashInput(command="npm test")) == "npm test"
    schema = tool.input_schema()
    assert set(schema["properties"]) == {"command", "timeout", "description", "run_in_background"}
    assert schema["required"] == ["command"]
    assert "Bash" in tool.description() or len(tool.description()) > 500


async def test_large_failing_output_says_its_exit_code(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    data, is_error, _ = await run(ctx, command="seq 1 20000; exit 3")
    assert is_error
    assert "</persisted-output>\nExit code 3" in data.text
