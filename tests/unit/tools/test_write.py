"""Write through the Tool API on real files."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from tests.support.tool_calls import call_tool, make_context
from tools.base import Tool, ToolContext
from tools.files.diff import FileChange
from tools.files.readstate import CHANGED, NOT_READ
from tools.read import ReadTool
from tools.write import WriteTool

WRITE = WriteTool()
READ = ReadTool()


def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def run(tool: Tool[Any], raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    return await call_tool(tool, raw, context)


async def test_creates_new_file_and_parents(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    status, data = await run(WRITE, {"file_path": "a/b/new.py", "content": "x = 1\n"}, context)
    assert status == "ok" and isinstance(data, FileChange) and data.kind == "create"
    assert (tmp_path / "a/b/new.py").read_text() == "x = 1\n"
    assert WRITE.to_result_content(data) == f"File created successfully at: {tmp_path}/a/b/new.py"
    assert "+x = 1" in data.diff
    mode = stat.S_IMODE((tmp_path / "a/b/new.py").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


async def test_overwrite_requires_read_and_freshness(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "f.txt"
    target.write_text("old\n")
    assert await run(WRITE, {"file_path": "f.txt", "content": "new\n"}, context) == (
        "invalid",
        NOT_READ,
    )
    assert (await run(READ, {"file_path": "f.txt"}, context))[0] == "ok"
    target.write_text("someone else\n")
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    assert await run(WRITE, {"file_path": "f.txt", "content": "new\n"}, context) == (
        "invalid",
        CHANGED,
    )
    assert (await run(READ, {"file_path": "f.txt"}, context))[0] == "ok"
    status, data = await run(WRITE, {"file_path": "f.txt", "content": "new\n"}, context)
    assert status == "ok" and data.kind == "update"
    assert target.read_text() == "new\n"
    assert "1\tnew" in WRITE.to_result_content(data)
    # Our own write counts as read: writing again works at once.
    assert (await run(WRITE, {"file_path": "f.txt", "content": "newer\n"}, context))[0] == "ok"


async def test_keeps_crlf_mode_and_encoding(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "w.bat"
    target.write_bytes("@echo off\r\nrem caf\u00e9\r\n".encode("utf-16"))
    target.chmod(0o700)
    await run(READ, {"file_path": "w.bat"}, context)
    status, _ = await run(WRITE, {"file_path": "w.bat", "content": "@echo on\nrem ok\n"}, context)
    assert status == "ok"
    assert target.read_bytes() == "@echo on\r\nrem ok\r\n".encode("utf-16")
    assert stat.S_IMODE(target.stat().st_mode) == 0o700


async def test_no_temp_files_left_and_directory_refused(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    await run(WRITE, {"file_path": "a.txt", "content": "1"}, context)
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]
    (tmp_path / "d").mkdir()
    status, text = await run(WRITE, {"file_path": "d", "content": "x"}, context)
    assert status == "invalid" and "directory" in text


async def test_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes anywhere; use a path under a regular file instead.
        (tmp_path / "file").write_text("")
        status, text = await run(
            WRITE, {"file_path": "file/inside.txt", "content": "x"}, ctx(tmp_path)
        )
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        status, text = await run(
            WRITE, {"file_path": "locked/x.txt", "content": "x"}, ctx(tmp_path)
        )
    assert status == "error" and "write" in text.lower()


async def test_bad_inputs(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    status, text = await run(WRITE, {"file_path": "a.txt"}, context)
    assert status == "input" and "`content` is missing" in text
    status, text = await run(WRITE, {"file_path": "a.txt", "content": 5}, context)
    assert status == "input" and "content" in text
    status, text = await run(WRITE, {"file_path": "\\\\srv\\share\\a", "content": "x"}, context)
    assert status == "invalid" and "UNC" in text


def test_declarations(tmp_path: Path) -> None:
    parsed = WRITE.parse_input({"file_path": "/x/../y.txt", "content": "a\nb\n"})
    assert not WRITE.is_concurrency_safe(parsed) and not WRITE.is_read_only(parsed)
    assert WRITE.permission_kind == "path_write"
    assert WRITE.permission_subject(parsed) == "/y.txt"
    assert WRITE.summary(parsed) == "/x/../y.txt (2 lines)"
    assert len(WRITE.description()) > 500
