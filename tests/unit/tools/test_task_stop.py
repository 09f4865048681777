"""TaskStop (alias KillShell) ends a background shell and every process it started."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tools.base import ToolContext
from tools.bash import BashTool
from tools.process.background import BackgroundShell
from tools.task_stop import TaskStopTool


def make_ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return ToolContext(
        cwd=str(work),
        project_dir=str(work),
        working_dirs=(str(work),),
        session_dir=str(tmp_path / "s"),
    )


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def start(ctx: ToolContext, command: str) -> BackgroundShell:
    tool = BashTool()
    result = await tool.call(
        tool.parse_input({"command": command, "run_in_background": True}),
        ctx,
        None,
        {},
        lambda p: None,  # type: ignore[arg-type]
    )
    shell = ctx.background.get(result.data.background_id)
    assert isinstance(shell, BackgroundShell)
    return shell


async def wait_for_file(path: Path) -> str:
    for _ in range(400):
        text = path.read_text().strip() if path.exists() else ""  # noqa: ASYNC240
        if text:
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_stop_kills_shell_and_grandchildren(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    pidfile = tmp_path / "child.pid"
    shell = await start(ctx, f"sleep 60 & echo $! > {pidfile}; wait")
    child = int(await wait_for_file(pidfile))
    tool = TaskStopTool()
    parsed = tool.parse_input({"shell_id": shell.id})
    assert (await tool.validate_input(parsed, ctx)).ok
    result = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    assert not result.is_error
    assert tool.to_result_content(result.data) == (
        f"Successfully stopped shell: {shell.id} ({shell.description})"
    )
    assert shell.status == "killed"
    assert not pid_alive(child) and shell.pid is not None and not pid_alive(shell.pid)
    again = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    assert "not running" in str(again.data)


async def test_alias_unknown_id_and_stop_all(tmp_path: Path) -> None:
    tool = TaskStopTool()
    assert tool.matches_name("KillShell") and tool.matches_name("TaskStop")
    ctx = make_ctx(tmp_path)
    check = await tool.validate_input(tool.parse_input({"shell_id": "bash_x"}), ctx)
    assert not check.ok and "bash_x" in check.message
    pidfile = tmp_path / "p"
    shell = await start(ctx, f"echo $$ > {pidfile}; sleep 60")
    pid = int(await wait_for_file(pidfile))
    await ctx.background.stop_all()
    assert shell.status == "killed" and not pid_alive(pid)
