"""Glob on ripgrep and on the Python walk: same fixtures, same answers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.tool_calls import call_tool, make_context
from tools.base import ToolContext
from tools.decisions import PermissionDecision
from tools.glob import MAX_RESULTS, TRUNCATED_NOTE, GlobResult, GlobTool
from tools.search.rg import find_rg

TOOL = GlobTool()
BACKENDS = ["rg", "python"]
NAMES = [
    ".gitignore",
    "README.md",
    "src/a.py",
    "src/b.ts",
    "src/deep/c.py",
    "src/deep/d.tsx",
    "tests/test_a.py",
    "node_modules/pkg/index.js",
    "node_modules/pkg/x.py",
    ".venv/lib/site.py",
    ".github/workflows/ci.yml",
    ".git/HEAD",
    "out.log",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for index, name in enumerate(NAMES):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
        os.utime(path, ns=(1_700_000_000_000_000_000 + index * 10**9,) * 2)
    (tmp_path / ".gitignore").write_text("node_modules/\n.venv/\n*.log\n")
    return tmp_path


def ctx(root: Path, backend: str) -> ToolContext:
    return make_context(root, extra={"search_backend": backend})


async def run(raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    kind, value = await call_tool(TOOL, raw, context)
    if kind != "ok":
        return kind, value
    assert isinstance(value, GlobResult)
    return "ok", TOOL.to_result_content(value)


def rel(root: Path, text: str) -> list[str]:
    return [os.path.relpath(line, root) for line in text.split("\n")]


PATTERNS = ["**/*.py", "*.py", "src/*.py", "src/**/*", "**/*.{ts,tsx}", "*", "**", "*.nothing"]


@pytest.mark.skipif(find_rg() is None, reason="ripgrep not installed")
@pytest.mark.parametrize("pattern", PATTERNS)
async def test_backends_agree(tree: Path, pattern: str) -> None:
    by_rg = await run({"pattern": pattern}, ctx(tree, "rg"))
    assert by_rg[0] == "ok"
    assert by_rg == await run({"pattern": pattern}, ctx(tree, "python"))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_patterns_newest_first_and_ignores(tree: Path, backend: str) -> None:
    context = ctx(tree, backend)
    _, text = await run({"pattern": "**/*.py"}, context)
    assert rel(tree, text) == ["tests/test_a.py", "src/deep/c.py", "src/a.py"]
    _, text = await run({"pattern": "src/*.py"}, context)
    assert rel(tree, text) == ["src/a.py"]
    _, text = await run({"pattern": "**/*"}, context)
    found = set(rel(tree, text))
    assert ".github/workflows/ci.yml" in found and ".gitignore" in found
    assert not {n for n in found if n.startswith(("node_modules", ".venv", ".git/"))}
    assert "out.log" not in found
    assert await run({"pattern": "*.nothing"}, context) == ("ok", "No files found")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_path_and_absolute_pattern(tree: Path, backend: str) -> None:
    context = ctx(tree, backend)
    _, text = await run({"pattern": "*.py", "path": "src/deep"}, context)
    assert text == str(tree / "src/deep/c.py")
    _, text = await run({"pattern": f"{tree}/src/*.ts"}, context)
    assert text == str(tree / "src/b.ts")
    _, text = await run({"pattern": "*.md", "path": "null"}, context)
    assert text == str(tree / "README.md")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_capped_at_100_with_note(tmp_path: Path, backend: str) -> None:
    for i in range(MAX_RESULTS + 5):
        (tmp_path / f"f{i:03}.txt").write_text("")
    status, text = await run({"pattern": "*.txt"}, ctx(tmp_path, backend))
    lines = text.split("\n")
    assert status == "ok" and len(lines) == MAX_RESULTS + 1 and lines[-1] == TRUNCATED_NOTE


async def test_bad_inputs(tree: Path) -> None:
    context = ctx(tree, "python")
    assert (await run({}, context))[0] == "input"
    status, text = await run({"pattern": "*", "path": "missing"}, context)
    assert status == "invalid" and "does not exist" in text and str(tree) in text
    status, text = await run({"pattern": "*", "path": "README.md"}, context)
    assert status == "invalid" and "not a directory" in text
    status, text = await run({"pattern": "*", "path": "//host/share"}, context)
    assert status == "invalid" and "UNC" in text
    assert (await run({"pattern": "  "}, context))[0] == "invalid"


class DenySecrets:
    def check_path(
        self, tool_name: str, path: str, access: Literal["read", "write"]
    ) -> PermissionDecision:
        if "secret" in path:
            return PermissionDecision.deny(f"{tool_name} of {path} is denied by Read(./secret/**)")
        return PermissionDecision.passthrough()

    def is_in_working_dirs(self, path: str) -> bool:
        return True


async def test_deny_rules_apply_to_the_resolved_path(tree: Path) -> None:
    (tree / "secret").mkdir()
    context = ToolContext(
        cwd=str(tree), project_dir=str(tree), working_dirs=(str(tree),), permissions=DenySecrets()
    )
    status, text = await run({"pattern": "*", "path": "secret"}, context)
    assert status == "invalid" and f"{tree}/secret is denied" in text
    from tools.read import ReadTool

    parsed = ReadTool().parse_input({"file_path": "secret/../secret/k.txt"})
    check = await ReadTool().validate_input(parsed, context)
    assert not check.ok and f"{tree}/secret/k.txt is denied" in check.message


def test_declarations() -> None:
    parsed = TOOL.parse_input({"pattern": "*.py", "path": "~/src"})
    assert TOOL.is_concurrency_safe(parsed) and TOOL.is_read_only(parsed)
    assert TOOL.permission_kind == "path_read" and TOOL.path_reach == "names"
    assert TOOL.permission_subject(parsed) == os.path.expanduser("~/src")
    assert len(TOOL.description()) > 500
