"""Edit through the Tool API on real files: read-first, uniqueness, encodings, atomicity."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_calls import call_tool, make_context
from tools.base import Tool, ToolContext, ToolError
from tools.edit import SAME_STRINGS, EditTool
from tools.files.diff import FileChange
from tools.files.readstate import CHANGED, NOT_READ
from tools.read import ReadTool

EDIT = EditTool()
READ = ReadTool()


def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def run(tool: Tool[Any], raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    return await call_tool(tool, raw, context)


async def read(path: str, context: ToolContext) -> None:
    status, _ = await run(READ, {"file_path": path}, context)
    assert status == "ok"


async def edit(context: ToolContext, **raw: Any) -> tuple[str, Any]:
    return await run(EDIT, raw, context)


async def test_replaces_unique_string_and_reports_snippet_and_diff(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "m.py"
    target.write_text("def a():\n    return 1\n\ndef b():\n    return 2\n")
    await read("m.py", context)
    status, data = await edit(
        context, file_path="m.py", old_string="    return 2", new_string="    return 3"
    )
    assert status == "ok" and isinstance(data, FileChange)
    assert target.read_text() == "def a():\n    return 1\n\ndef b():\n    return 3\n"
    message = EDIT.to_result_content(data)
    assert isinstance(message, str)
    assert "has been updated" in message and "5\t    return 3" in message
    assert "-    return 2\n+    return 3\n" in data.diff
    assert (data.added, data.removed) == (1, 1)


async def test_must_read_first_and_partial_read_counts(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    assert await edit(context, file_path="f.txt", old_string="b", new_string="B") == (
        "invalid",
        NOT_READ,
    )
    await run(READ, {"file_path": "f.txt", "offset": 3, "limit": 1}, context)
    status, _ = await edit(context, file_path="f.txt", old_string="b", new_string="B")
    assert status == "ok"


async def test_changed_since_read_refused_but_touch_is_fine(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "f.txt"
    target.write_text("alpha\n")
    await read("f.txt", context)
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    status, _ = await edit(context, file_path="f.txt", old_string="alpha", new_string="beta")
    assert status == "ok"
    target.write_text("changed by someone\n")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))
    assert await edit(context, file_path="f.txt", old_string="changed", new_string="x") == (
        "invalid",
        CHANGED,
    )


async def test_second_edit_needs_no_new_read(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "f.txt").write_text("one two three\n")
    await read("f.txt", context)
    assert (await edit(context, file_path="f.txt", old_string="one", new_string="1"))[0] == "ok"
    assert (await edit(context, file_path="f.txt", old_string="two", new_string="2"))[0] == "ok"
    assert (tmp_path / "f.txt").read_text() == "1 2 three\n"


async def test_not_unique_without_replace_all(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "f.txt").write_text("x = 1\nx = 1\nx = 1\n")
    await read("f.txt", context)
    status, text = await edit(context, file_path="f.txt", old_string="x = 1", new_string="y")
    assert status == "invalid" and "Found 3 matches" in text and "replace_all" in text
    status, data = await edit(
        context, file_path="f.txt", old_string="x = 1", new_string="y = 2", replace_all="true"
    )
    assert status == "ok" and data.replacements == 3
    assert (tmp_path / "f.txt").read_text() == "y = 2\ny = 2\ny = 2\n"


async def test_not_found_and_same_strings(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "f.txt").write_text("hello\n")
    await read("f.txt", context)
    status, text = await edit(context, file_path="f.txt", old_string="nope", new_string="x")
    assert status == "invalid" and text.startswith("String to replace not found in file.")
    assert await edit(context, file_path="f.txt", old_string="a", new_string="a") == (
        "invalid",
        SAME_STRINGS,
    )


async def test_empty_old_string_creates_missing_file_in_new_folder(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    status, data = await edit(
        context, file_path="new/dir/f.txt", old_string="", new_string="fresh\n"
    )
    assert status == "ok" and data.kind == "create"
    assert (tmp_path / "new/dir/f.txt").read_text() == "fresh\n"
    status, text = await edit(context, file_path="new/dir/f.txt", old_string="", new_string="x")
    assert status == "invalid" and "already exists" in text


async def test_missing_file_with_old_string(tmp_path: Path) -> None:
    status, text = await edit(ctx(tmp_path), file_path="gone.txt", old_string="a", new_string="b")
    assert status == "invalid" and "File does not exist." in text and str(tmp_path) in text


async def test_crlf_kept_and_lf_old_string_matches(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "w.txt"
    target.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    await read("w.txt", context)
    status, _ = await edit(
        context, file_path="w.txt", old_string="first\nsecond", new_string="1\n2\n2b"
    )
    assert status == "ok"
    assert target.read_bytes() == b"1\r\n2\r\n2b\r\nthird\r\n"


async def test_encoding_bom_and_mode_kept(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "u.sh"
    target.write_bytes(b"\xef\xbb\xbfecho h\xc3\xa9llo\n")
    target.chmod(0o751)
    latin = tmp_path / "l.txt"
    latin.write_bytes(b"caf\xe9 au lait\n")
    await read("u.sh", context)
    await read("l.txt", context)
    assert (await edit(context, file_path="u.sh", old_string="héllo", new_string="wörld"))[
        0
    ] == "ok"
    assert target.read_bytes() == b"\xef\xbb\xbfecho w\xc3\xb6rld\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert (await edit(context, file_path="l.txt", old_string="au", new_string="à"))[0] == "ok"
    assert latin.read_bytes() == b"caf\xe9 \xe0 lait\n"


async def test_curly_quotes_in_file_match_straight_quotes(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "q.md").write_text("He said “hello” to ‘them’.\n")
    await read("q.md", context)
    status, _ = await edit(
        context, file_path="q.md", old_string='said "hello"', new_string="said hi"
    )
    assert status == "ok"
    assert (tmp_path / "q.md").read_text() == "He said hi to ‘them’.\n"


async def test_deleting_a_line_takes_its_newline(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "f.txt").write_text("keep\ndrop me\nkeep too\n")
    await read("f.txt", context)
    assert (await edit(context, file_path="f.txt", old_string="drop me", new_string=""))[0] == "ok"
    assert (tmp_path / "f.txt").read_text() == "keep\nkeep too\n"


async def test_symlink_is_kept(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "real.txt").write_text("v1\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    await read("link.txt", context)
    assert (await edit(context, file_path="link.txt", old_string="v1", new_string="v2"))[0] == "ok"
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "v2\n"
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []


async def test_file_changed_between_validation_and_call(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    target = tmp_path / "f.txt"
    target.write_text("abc\n")
    await read("f.txt", context)
    parsed = EDIT.parse_input({"file_path": "f.txt", "old_string": "abc", "new_string": "x"})
    assert (await EDIT.validate_input(parsed, context)).ok
    target.write_text("abc and more\n")
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
    with pytest.raises(ToolError, match="modified since read"):
        await EDIT.call(parsed, context, None, {}, lambda p: None)  # type: ignore[arg-type]
    assert target.read_text() == "abc and more\n"


async def test_bad_inputs(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    status, text = await edit(context, file_path="f.txt", old_string="a")
    assert status == "input" and "new_string" in text
    status, text = await edit(
        context, file_path="f.txt", old_string="a", new_string="b", replace_all="maybe"
    )
    assert status == "input" and "replace_all" in text
    status, text = await edit(context, file_path="//host/s/f", old_string="a", new_string="b")
    assert status == "invalid" and "UNC" in text
    (tmp_path / "d").mkdir()
    status, text = await edit(context, file_path="d", old_string="a", new_string="b")
    assert status == "invalid" and "directory" in text


def test_declarations(tmp_path: Path) -> None:
    parsed = EDIT.parse_input({"file_path": "a", "old_string": "x", "new_string": "y"})
    assert not EDIT.is_concurrency_safe(parsed) and not EDIT.is_read_only(parsed)
    assert EDIT.permission_kind == "path_write"
    observed = {"file_path": "~/f"}
    EDIT.backfill_observable_input(observed, ctx(tmp_path))
    assert observed["file_path"] == os.path.expanduser("~/f")
    assert len(EDIT.description()) > 500
