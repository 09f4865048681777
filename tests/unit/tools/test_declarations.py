"""The declarations policy and the UI read instead of switching on tool names: the permission
kind and subject, the preview (a diff against the file as it is on disk) and the result view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from app.config.rules import known_tools, path_rule_tools, rule_kind
from app.mcp.bridge import McpTool
from tools.abort import AbortSignal
from tools.base import Tool, ToolContext
from tools.bash import BashTool
from tools.edit import EditTool
from tools.files.diff import FileChange
from tools.notebook_edit import NotebookEditTool
from tools.read import ReadResult, ReadTool
from tools.registry import base_tool_classes, get_all_base_tools
from tools.web_fetch import WebFetchTool
from tools.write import WriteTool

EXPECTED_KINDS = {
    "Bash": "shell",
    "Read": "path_read",
    "Glob": "path_read",
    "Grep": "path_read",
    "Edit": "path_write",
    "Write": "path_write",
    "NotebookEdit": "path_write",
    "WebFetch": "url",
}


def ctx(tmp: Path) -> ToolContext:
    return ToolContext(cwd=str(tmp), project_dir=str(tmp), working_dirs=(str(tmp),))


def test_every_tool_declares_its_permission_kind() -> None:
    tools = get_all_base_tools()
    assert {t.name for t in tools} >= set(EXPECTED_KINDS)
    for tool in tools:
        assert tool.permission_kind == EXPECTED_KINDS.get(tool.name, "generic"), tool.name
        path_kind = tool.permission_kind in ("path_read", "path_write")
        # A kind that matches a subject names the observable field holding it.
        assert (tool.subject_field is not None) == (path_kind or tool.name in ("Bash", "WebFetch"))


def test_rule_families_come_from_the_declarations() -> None:
    assert path_rule_tools("path_read") == {"Read", "Glob", "Grep", "NotebookRead", "LS"}
    assert path_rule_tools("path_write") == {"Edit", "Write", "NotebookEdit", "MultiEdit"}
    assert rule_kind("Bash") == "shell" and rule_kind("WebFetch") == "url"
    assert rule_kind("KillShell") == "generic"  # TaskStop's alias
    assert rule_kind("mcp__srv__x") == "generic" and rule_kind("Nonesuch") == "generic"
    assert {cls.name for cls in base_tool_classes()} <= known_tools()


def _mcp(read_only: bool | None) -> McpTool:
    class Caller:
        server_name = "srv"

        async def call_tool(
            self, tool: str, arguments: dict[str, Any], abort: AbortSignal
        ) -> types.CallToolResult:
            raise AssertionError("not called")

    hints = types.ToolAnnotations(read_only_hint=read_only) if read_only is not None else None
    spec = types.Tool(name="t", input_schema={"type": "object"}, annotations=hints)
    return McpTool(Caller(), spec)


def test_mcp_tools_are_generic_and_read_only_only_by_annotation() -> None:
    for tool in (_mcp(None), _mcp(True), _mcp(False)):
        assert tool.permission_kind == "generic" and tool.permission_subject({}) is None
    assert _mcp(True).is_read_only({}) and not _mcp(None).is_read_only({})


def test_bash_preview_is_its_command() -> None:
    tool = BashTool()
    preview = tool.preview(tool.parse_input({"command": "ls -la"}), ctx(Path("/")))
    assert preview is not None
    assert (preview.kind, preview.text, preview.language) == ("command", "ls -la", "bash")


def test_edit_preview_diffs_the_file_on_disk(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("one\ntwo\nthree\ntwo\n")
    tool = EditTool()
    edit = tool.parse_input(
        {"file_path": "a.py", "old_string": "two", "new_string": "2", "replace_all": True}
    )
    preview = tool.preview(edit, ctx(tmp_path))
    assert preview is not None and preview.kind == "diff" and preview.path == str(target)
    # Both occurrences, with the file's context lines: the real replacement, not the strings.
    assert preview.text.count("-two") == 2 and preview.text.count("+2") == 2
    assert " one" in preview.text and " three" in preview.text
    # The file's curly quotes match straight ones, as the call itself matches them.
    target.write_text("say “hi”\n")
    quoted = tool.parse_input({"file_path": "a.py", "old_string": 'say "hi"', "new_string": "x"})
    preview = tool.preview(quoted, ctx(tmp_path))
    assert preview is not None and "-say “hi”" in preview.text and "+x" in preview.text
    # A string the file does not hold: the strings alone (the call will fail and say why).
    missing = tool.parse_input({"file_path": "a.py", "old_string": "nope", "new_string": "y"})
    preview = tool.preview(missing, ctx(tmp_path))
    assert preview is not None and "-nope" in preview.text and "+y" in preview.text


def test_write_preview_diffs_against_the_file_or_creates(tmp_path: Path) -> None:
    tool = WriteTool()
    (tmp_path / "old.txt").write_bytes(b"a\r\nb\r\n")
    over = tool.preview(
        tool.parse_input({"file_path": "old.txt", "content": "a\r\nc\r\n"}), ctx(tmp_path)
    )
    assert over is not None and over.kind == "diff"
    assert "-b" in over.text and "+c" in over.text and " a" in over.text and "\r" not in over.text
    new = tool.preview(tool.parse_input({"file_path": "new.txt", "content": "x\n"}), ctx(tmp_path))
    assert new is not None and "/dev/null" in new.text and "+x" in new.text


def test_notebook_preview_diffs_the_notebook_file(tmp_path: Path) -> None:
    nb = {
        "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["print(1)"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "n.ipynb").write_text(json.dumps(nb, indent=1) + "\n")
    tool = NotebookEditTool()
    edit = tool.parse_input(
        {"notebook_path": str(tmp_path / "n.ipynb"), "cell_id": "c1", "new_source": "print(2)"}
    )
    preview = tool.preview(edit, ctx(tmp_path))
    assert preview is not None and preview.kind == "diff"
    assert '-    "print(1)"' in preview.text and '+    "print(2)"' in preview.text
    gone = tool.parse_input(
        {"notebook_path": str(tmp_path / "n.ipynb"), "cell_id": "zz", "new_source": "x"}
    )
    fallback = tool.preview(gone, ctx(tmp_path))
    assert fallback is not None and fallback.kind == "text" and "cell_id: zz" in fallback.text


def test_default_preview_lists_the_input() -> None:
    tool = WebFetchTool()
    preview = tool.preview(
        tool.parse_input({"url": "https://example.com/", "prompt": "p"}), ctx(Path("/"))
    )
    assert preview is not None and preview.kind == "text"
    assert preview.text == "url: https://example.com/\nprompt: p"


def test_result_views() -> None:
    change = FileChange("update", "/x", "@@ -1 +1 @@\n-a\n+b\n", "updated", 1, 1)
    view = EditTool().result_view(change, False)
    assert view is not None and (view.kind, view.body) == ("diff", change.diff)
    assert view.summary == "Added 1, removed 1 lines"
    err = EditTool().result_view("String to replace not found in file.\nString: q", True)
    assert err is not None and err.kind == "error"
    assert err.summary == "String to replace not found in file."
    image = ReadTool().result_view(ReadResult("image", "/p.png", size_bytes=2048), False)
    assert image is not None and image.kind == "image" and image.summary == "Read image (2 KB)"
    text = ReadTool().result_view(ReadResult("text", "/x", "     1\ta", num_lines=1), False)
    assert text is not None and text.summary == "Read 1 line" and text.body == "     1\ta"


@pytest.mark.parametrize("tool", get_all_base_tools(), ids=lambda t: t.name)
def test_every_tool_has_a_result_view(tool: Tool[Any]) -> None:
    view = tool.result_view("some output\nmore", False)
    assert view is not None and view.summary and view.kind == "text"


def test_a_fifo_at_the_path_does_not_block_the_preview(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tool = WriteTool()
    preview = tool.preview(tool.parse_input({"file_path": "pipe", "content": "x\n"}), ctx(tmp_path))
    assert preview is not None and "+x" in preview.text  # read as nothing: no writer, no block
