"""Grep and Glob never show files that a Read deny rule covers (`Read(./.env)`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config.loader import CliOverrides
from app.permissions import RuleDecider
from tests.support.permission_context import load_permission_context
from tools.abort import AbortSignal
from tools.base import ToolContext
from tools.glob import GlobTool
from tools.grep import GrepTool


async def _allow(*args, **kwargs):  # can_use_tool: never consulted by these tools
    raise AssertionError


@pytest.fixture(params=["rg", "python"])
def ctx(request, tmp_path: Path, monkeypatch) -> ToolContext:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".env").write_text("SECRET=hunter2\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "key.txt").write_text("SECRET=k\n")
    (project / "app.py").write_text("SECRET = load()\n")
    if request.param == "python":
        # Both tools imported use_rg by name: switch each to the pure-Python fallback.
        monkeypatch.setattr("tools.grep.use_rg", lambda context: None)
        monkeypatch.setattr("tools.glob.use_rg", lambda context: None)
    pc = load_permission_context(
        project, CliOverrides(disallowed_tools=("Read(./.env)", "Read(./secrets/**)")), trusted=True
    )
    decider = RuleDecider(pc)
    return ToolContext(
        cwd=str(project),
        project_dir=str(project),
        working_dirs=(str(project),),
        permissions=decider.view(),
        abort=AbortSignal(),
    )


async def test_grep_hides_denied_files(ctx: ToolContext) -> None:
    tool = GrepTool()
    out = await tool.call(
        tool.parse_input({"pattern": "SECRET", "output_mode": "content"}),
        ctx,
        _allow,
        {},
        lambda p: None,
    )
    text = tool.to_result_content(out.data)
    assert "app.py" in text
    assert "hunter2" not in text and ".env" not in text and "key.txt" not in text


async def test_glob_hides_denied_files(ctx: ToolContext) -> None:
    tool = GlobTool()
    out = await tool.call(tool.parse_input({"pattern": "**/*"}), ctx, _allow, {}, lambda p: None)
    text = tool.to_result_content(out.data)
    assert "app.py" in text and "key.txt" not in text
