"""The path-taking tools show rules and hooks the absolute path (`~` expanded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.base import ToolContext
from tools.edit import EditTool
from tools.glob import GlobTool
from tools.grep import GrepTool
from tools.read import ReadTool
from tools.write import WriteTool


@pytest.mark.parametrize(
    ("tool", "raw", "field"),
    [
        (ReadTool(), {"file_path": "src/a.py"}, "file_path"),
        (WriteTool(), {"file_path": "src/a.py", "content": "x"}, "file_path"),
        (EditTool(), {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}, "file_path"),
        (GlobTool(), {"pattern": "*.py", "path": "src"}, "path"),
        (GrepTool(), {"pattern": "x", "path": "src"}, "path"),
    ],
)
def test_observers_see_absolute_paths(tool, raw, field, tmp_path: Path, monkeypatch) -> None:
    ctx = ToolContext(cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=(str(tmp_path),))
    observable = dict(raw)
    tool.backfill_observable_input(observable, ctx)
    assert observable[field] == str(tmp_path / "src" / ("a.py" if field == "file_path" else ""))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home = dict(raw, **{field: "~/x"})
    tool.backfill_observable_input(home, ctx)
    assert home[field] == str(tmp_path / "home" / "x")


def test_search_without_a_path_has_no_target() -> None:
    tool = GrepTool()
    assert tool.permission_subject(tool.parse_input({"pattern": "x"})) is None
    read = ReadTool()
    assert read.permission_subject(read.parse_input({"file_path": "/etc/hosts"})) == "/etc/hosts"
