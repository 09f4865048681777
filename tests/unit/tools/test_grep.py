"""Grep on ripgrep and on the Python fallback: the same fixtures, the same text, and bad inputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_calls import call_tool, make_context
from tools.base import ToolContext, ToolError, api_schema
from tools.grep import GrepInput, GrepTool
from tools.search.grep_model import GrepResult
from tools.search.rg import find_rg

TOOL = GrepTool()
BACKENDS = ["rg", "python"]

FILES: dict[str, bytes] = {
    ".gitignore": b"build/\n*.log\n!keep.log\n",
    "src/app.py": b"import os\n\ndef main():\n    # TODO: wire it\n    return helper()\n",
    "src/util.py": b"def helper():\n    return 42\n\n\ndef other():\n    pass  # todo later\n",
    "src/web/index.ts": b"export function main(): void {\n  console.log('main');\n}\n",
    "src/web/comp.tsx": b"export const Main = () => <div>main</div>;\n",
    "lib/x.min.js": b"var main=" + b"1+" * 400 + b"1;\nvar short_main = 2;\n",
    "build/out.py": b"def main(): pass\n",
    "debug.log": b"main crashed\n",
    "keep.log": b"main kept\n",
    ".hidden/conf.py": b"MAIN = 'main'\n",
    ".git/config": b"[core] main\n",
    "docs/readme.md": b"# Main\n\nRun `main`.\nLine four\nLine five\n",
    "data.bin": b"main\x00\x01\x02binary",
    "crlf.txt": b"first line\r\nmain here\r\nlast\r\n",
    "sub/.gitignore": b"*.tmp\n",
    "sub/a.tmp": b"main tmp\n",
    "sub/b.txt": b"main b\nstruct {\n  field: int\n}\n",
    ".ignore": b"dotignored.txt\n",
    "dotignored.txt": b"main\n",
    "utf16.txt": "main in utf16\nsecond\n".encode("utf-16"),
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "outer" / "repo"
    root.mkdir(parents=True)
    (tmp_path / "outer" / ".gitignore").write_bytes(b"*.secret\n")
    for index, (name, data) in enumerate(sorted(FILES.items())):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        # Distinct modification times: files_with_matches sorts newest first.
        os.utime(path, ns=(1_600_000_000_000_000_000 + index * 10**9,) * 2)
    (root / "parent.secret").write_bytes(b"main\n")
    return root


def ctx(root: Path, backend: str) -> ToolContext:
    return make_context(root, extra={"search_backend": backend})


async def run(raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    kind, value = await call_tool(TOOL, raw, context)
    if kind != "ok":
        return kind, value
    assert isinstance(value, GrepResult)
    return "ok", TOOL.to_result_content(value)


QUERIES: list[dict[str, Any]] = [
    {"pattern": "main"},
    {"pattern": "main", "output_mode": "content"},
    {"pattern": "main", "output_mode": "count"},
    {"pattern": "MAIN", "-i": True, "output_mode": "content"},
    {"pattern": "main", "output_mode": "content", "-n": False},
    {"pattern": "def \\w+", "output_mode": "content", "-C": 1},
    {"pattern": "return", "output_mode": "content", "-A": "2", "-B": "1"},
    {"pattern": "main", "glob": "*.{ts,tsx}", "output_mode": "content"},
    {"pattern": "main", "glob": "src/**/*.py"},
    {"pattern": "main", "glob": "!*.md !*.txt"},
    {"pattern": "main", "glob": "*.log"},
    {"pattern": "main", "type": "py", "output_mode": "count"},
    {"pattern": "main", "type": "ts"},
    {"pattern": "todo", "-i": True, "output_mode": "content", "path": "src"},
    {"pattern": "main", "output_mode": "content", "path": "crlf.txt"},
    {"pattern": "here$", "output_mode": "content"},
    {"pattern": "struct \\{[\\s\\S]*?field", "multiline": True, "output_mode": "content"},
    {"pattern": "^\\}", "output_mode": "content", "multiline": True},
    {"pattern": "main", "output_mode": "content", "head_limit": 3},
    {"pattern": "main", "output_mode": "content", "head_limit": "2", "offset": "3"},
    {"pattern": "main", "head_limit": 0},
    {"pattern": "main", "offset": 1000},
    {"pattern": "nothing-matches-this"},
    {"pattern": "nothing-matches-this", "output_mode": "content"},
    {"pattern": "-?main", "output_mode": "count"},
]


@pytest.mark.skipif(find_rg() is None, reason="ripgrep not installed")
@pytest.mark.parametrize("raw", QUERIES, ids=[str(i) for i in range(len(QUERIES))])
async def test_backends_agree(tree: Path, raw: dict[str, Any]) -> None:
    by_rg = await run(raw, ctx(tree, "rg"))
    by_python = await run(raw, ctx(tree, "python"))
    assert by_rg[0] == "ok"
    assert by_rg == by_python


@pytest.mark.parametrize("backend", BACKENDS)
async def test_files_with_matches_respects_ignores_and_sorts_newest_first(
    tree: Path, backend: str
) -> None:
    status, text = await run({"pattern": "main"}, ctx(tree, backend))
    assert status == "ok"
    lines = text.split("\n")
    found = {p.removeprefix(f"{tree}/") for p in lines[1:]}
    assert lines[0] == f"Found {len(found)} files"
    assert {"src/app.py", "keep.log", ".hidden/conf.py", "sub/b.txt", "utf16.txt"} <= found
    ignored = {"build/out.py", "debug.log", ".git/config", "sub/a.tmp", "data.bin"}
    assert not ignored & found
    assert not {"dotignored.txt", "parent.secret"} & found
    mtimes = [os.stat(p).st_mtime_ns for p in lines[1:]]
    assert mtimes == sorted(mtimes, reverse=True)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_content_format_and_context_separators(tree: Path, backend: str) -> None:
    status, text = await run(
        {"pattern": "helper", "output_mode": "content", "-C": 1, "path": "src"},
        ctx(tree, backend),
    )
    assert status == "ok"
    app, util = tree / "src/app.py", tree / "src/util.py"
    assert text.split("\n") == [
        f"{app}-4-    # TODO: wire it",
        f"{app}:5:    return helper()",
        "--",
        f"{util}:1:def helper():",
        f"{util}-2-    return 42",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_long_lines_omitted_and_pagination_note(tree: Path, backend: str) -> None:
    status, text = await run(
        {"pattern": "main", "output_mode": "content", "path": "lib"}, ctx(tree, backend)
    )
    assert status == "ok"
    assert f"{tree}/lib/x.min.js:1:[Omitted long matching line]" in text
    status, text = await run(
        {"pattern": "main", "output_mode": "content", "head_limit": 2}, ctx(tree, backend)
    )
    body, note = text.split("\n\n")
    assert len(body.split("\n")) == 2 and note.startswith("[Showing 1-2 of ")
    assert "offset=2" in note


@pytest.mark.parametrize("backend", BACKENDS)
async def test_count_summary(tree: Path, backend: str) -> None:
    status, text = await run(
        {"pattern": "return", "output_mode": "count", "path": "src"}, ctx(tree, backend)
    )
    assert status == "ok"
    assert text == (
        f"{tree}/src/app.py:1\n{tree}/src/util.py:1\n\nFound 2 total occurrences across 2 files."
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_errors(tree: Path, backend: str) -> None:
    context = ctx(tree, backend)
    status, text = await run({"pattern": "(unclosed"}, context)
    assert status == "error" and "Invalid regex" in text
    status, text = await run({"pattern": "a\\nb"}, context)
    assert status == "error" and "multiline" in text
    status, text = await run({"pattern": "x", "path": "no/such/dir"}, context)
    assert status == "invalid" and "does not exist" in text and str(tree) in text
    status, text = await run({"pattern": "x", "type": "klingon"}, context)
    assert status == "invalid" and "Unknown file type" in text


async def test_bad_inputs_a_model_sends(tree: Path) -> None:
    context = ctx(tree, "python")
    status, text = await run({}, context)
    assert status == "input" and "`pattern` is missing" in text
    status, text = await run({"pattern": "x", "output_mode": "lines"}, context)
    assert status == "input" and "output_mode" in text
    status, text = await run({"pattern": "x", "-A": -1}, context)
    assert status == "input" and "-A" in text
    status, text = await run({"pattern": "x", "head_limit": "many"}, context)
    assert status == "input" and "head_limit" in text
    # Placeholders for "no path" and enormous numbers are accepted sensibly.
    status, text = await run(
        {"pattern": "helper", "path": "undefined", "-C": 10**12, "output_mode": "content"},
        context,
    )
    assert status == "ok" and "def helper" in text
    status, text = await run({"pattern": "main", "head_limit": 10**18}, context)
    assert status == "ok" and text.startswith("Found ")


def test_schema_uses_contract_names(tree: Path) -> None:
    schema = api_schema(GrepInput)
    assert set(schema["properties"]) == {
        "pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C",
        "multiline", "head_limit", "offset",
    }  # fmt: skip
    assert schema["required"] == ["pattern"]
    parsed = TOOL.parse_input({"pattern": "x", "type": "py", "-i": "true"})
    assert TOOL.dump_input(parsed) == {"pattern": "x", "type": "py", "-i": True}
    assert TOOL.is_concurrency_safe(parsed) and TOOL.is_read_only(parsed)
    assert TOOL.permission_kind == "path_read" and TOOL.path_reach == "contents"
    observed = {"pattern": "x", "path": "src"}
    TOOL.backfill_observable_input(observed, ctx(tree, "rg"))
    assert observed["path"] == str(tree / "src")
    assert len(TOOL.description()) > 500


@pytest.mark.parametrize("backend", BACKENDS)
async def test_aborted_search_is_cancelled(tree: Path, backend: str) -> None:
    from tools.abort import AbortController

    controller = AbortController()
    controller.abort("user_interrupt")
    context = ctx(tree, backend).with_call("toolu_1", controller.signal)
    parsed = TOOL.parse_input({"pattern": "main"})
    with pytest.raises(ToolError, match="cancelled"):
        await TOOL.call(parsed, context, None, {}, lambda p: None)  # type: ignore[arg-type]
