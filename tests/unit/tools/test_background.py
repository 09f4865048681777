"""Background shells: Bash(run_in_background) + BashOutput, real processes."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from tools.base import ToolContext
from tools.bash import BashResult, BashTool
from tools.bash_output import BashOutputTool
from tools.process.background import BackgroundShell


def make_ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return ToolContext(
        cwd=str(work),
        project_dir=str(work),
        working_dirs=(str(work),),
        session_dir=str(tmp_path / "session"),
        tool_use_id="toolu_bg",
    )


async def start(ctx: ToolContext, command: str) -> BackgroundShell:
    tool = BashTool()
    result = await tool.call(
        tool.parse_input({"command": command, "run_in_background": True}),
        ctx,
        None,  # type: ignore[arg-type]
        {},
        lambda p: None,
    )
    assert isinstance(result.data, BashResult) and not result.is_error
    shell_id = result.data.background_id
    assert shell_id and shell_id in result.data.text
    shell = ctx.background.get(shell_id)
    assert isinstance(shell, BackgroundShell)
    return shell


async def read(ctx: ToolContext, **raw: Any) -> tuple[str, bool]:
    tool = BashOutputTool()
    parsed = tool.parse_input(raw)
    check = await tool.validate_input(parsed, ctx)
    if not check.ok:
        return check.message, True
    result = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    return str(tool.to_result_content(result.data)), result.is_error


async def test_returns_at_once_and_output_is_read_incrementally(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    gate = tmp_path / "gate"
    shell = await start(ctx, f"echo first; while [ ! -e {gate} ]; do sleep 0.02; done; echo second")
    assert shell.status == "running"
    for _ in range(200):
        text, _ = await read(ctx, bash_id=shell.id)
        if "first" in text:
            break
        await asyncio.sleep(0.02)
    assert "<status>running</status>" in text and "first" in text
    gate.touch()
    await shell.wait()
    text, is_error = await read(ctx, bash_id=shell.id)
    assert not is_error
    assert "<status>completed</status>" in text and "<exit_code>0</exit_code>" in text
    assert "second" in text and "first" not in text  # only what is new since the last read
    text, _ = await read(ctx, bash_id=shell.id)
    assert "(No new output)" in text


async def test_failure_status_and_stderr(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    shell = await start(ctx, "echo oops >&2; exit 4")
    await shell.wait()
    text, _ = await read(ctx, bash_id=shell.id)
    assert "<status>failed</status>" in text and "<exit_code>4</exit_code>" in text
    assert re.search(r"<stderr>\noops\n</stderr>", text)


async def test_filter_keeps_matching_lines(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    shell = await start(ctx, "printf 'ok 1\\nERROR a\\nok 2\\nERROR b\\n'")
    await shell.wait()
    text, _ = await read(ctx, bash_id=shell.id, filter="^ERROR")
    assert "ERROR a\nERROR b" in text and "ok 1" not in text
    assert "<filtered_lines>2</filtered_lines>" in text


async def test_bad_filter_and_unknown_id(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    text, is_error = await read(ctx, bash_id="bash_nope")
    assert is_error and "No shell found with ID: bash_nope" in text
    shell = await start(ctx, "true")
    text, is_error = await read(ctx, bash_id=shell.id, filter="([")
    assert is_error and "Invalid regular expression" in text
    await shell.wait()


async def test_large_background_output_is_bounded_per_read(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    shell = await start(ctx, "seq 1 100000")
    await shell.wait()
    assert shell.stdout_path.read_text() == "".join(f"{i}\n" for i in range(1, 100001))
    text, _ = await read(ctx, bash_id=shell.id)
    assert "earlier characters omitted" in text
    assert text.count("\n") < 10_000 and "\n100000\n" in text


async def test_background_starts_in_cwd_and_declarations(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    shell = await start(ctx, "pwd")
    await shell.wait()
    text, _ = await read(ctx, bash_id=shell.id)
    assert ctx.cwd in text
    tool = BashOutputTool()
    parsed = tool.parse_input({"bash_id": shell.id})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert (await tool.check_permissions(parsed, ctx)).behavior == "allow"
