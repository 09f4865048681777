"""Edit and Write change only what they change: every other byte of the file stays identical,
whatever the encoding (latin-1, cp1252, mixed, UTF-8 with BOM, UTF-16 LE/BE, CRLF, no final
newline); a change made behind the model's back is found by content even with its mtime restored.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_calls import call_tool, call_tool_text, make_context
from tools.base import ToolContext
from tools.edit import EditTool
from tools.files.readstate import CHANGED
from tools.read import ReadTool
from tools.write import WriteTool

EDIT, READ, WRITE = EditTool(), ReadTool(), WriteTool()

# name -> (file bytes, the line the edit changes, as bytes in the file, and as the model sees it)
LINES = ["# café crème", "target = 1", "naïve = 'straße'", "end"]


def _encode(lines: list[str], codec: str, eol: str = "\n", final: bool = True) -> bytes:
    text = eol.join(lines) + (eol if final else "")
    return text.encode(codec)


CASES: dict[str, bytes] = {
    "latin-1": _encode(LINES, "latin-1"),
    "cp1252": _encode([*LINES, "price: 5 € – “quoted”"], "cp1252"),
    "mixed": _encode(LINES[:2], "utf-8") + _encode(LINES[2:], "latin-1"),
    "utf-8-bom": b"\xef\xbb\xbf" + _encode(LINES, "utf-8"),
    "utf-16-le": b"\xff\xfe" + _encode(LINES, "utf-16-le"),
    "utf-16-be": b"\xfe\xff" + _encode(LINES, "utf-16-be"),
    "crlf-utf-8": _encode(LINES, "utf-8", "\r\n"),
    "crlf-latin-1": _encode(LINES, "latin-1", "\r\n"),
    "no-final-newline": _encode(LINES, "utf-8", final=False),
    "mixed-endings": b"# caf\xc3\xa9\r\ntarget = 1\nna\xefve\r\nend",
}


def _codec(name: str) -> str:
    return {"utf-16-le": "utf-16-le", "utf-16-be": "utf-16-be"}.get(name, "ascii")


async def _read(context: ToolContext, path: Path) -> str:
    status, text = await call_tool_text(READ, {"file_path": str(path)}, context)
    assert status == "ok", text
    return str(text)


@pytest.mark.parametrize("name", sorted(CASES))
async def test_edit_changes_only_the_edited_bytes(tmp_path: Path, name: str) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "f.txt"
    original = CASES[name]
    path.write_bytes(original)
    shown = await _read(context, path)
    assert "target = 1" in shown and "caf\u00e9" in shown  # Read decodes every line readably
    status, data = await call_tool(
        EDIT,
        {"file_path": str(path), "old_string": "target = 1", "new_string": "target = 2"},
        context,
    )
    assert status == "ok", data
    codec = _codec(name)
    expected = original.replace("target = 1".encode(codec), "target = 2".encode(codec), 1)
    assert path.read_bytes() == expected


@pytest.mark.parametrize("name", sorted(CASES))
async def test_write_of_the_read_text_with_one_line_changed_keeps_the_rest(
    tmp_path: Path, name: str
) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "f.txt"
    original = CASES[name]
    path.write_bytes(original)
    await _read(context, path)
    # What the model would write back: the file as it saw it, one line changed.
    from tools.files.textfile import load

    seen = load(str(path)).text
    status, data = await call_tool(
        WRITE,
        {"file_path": str(path), "content": seen.replace("target = 1", "target = 2")},
        context,
    )
    assert status == "ok", data
    codec = _codec(name)
    assert path.read_bytes() == original.replace(
        "target = 1".encode(codec), "target = 2".encode(codec), 1
    )


async def test_non_ascii_edit_in_a_mixed_file_encodes_each_line_as_it_was(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "m.txt"
    utf8_line, latin_line = "élan = 1\n".encode(), "garçon = 2\n".encode("latin-1")
    path.write_bytes(utf8_line + latin_line + b"tail\n")
    await _read(context, path)
    for old, new in (("élan = 1", "élan = 10 ü"), ("garçon = 2", "garçon = 20 ü")):
        status, data = await call_tool(
            EDIT, {"file_path": str(path), "old_string": old, "new_string": new}, context
        )
        assert status == "ok", data
    # The old code decoded everything as latin-1 and, for a character latin-1 lacks, wrote the
    # whole file as UTF-8: every other non-ASCII character was double-encoded.
    assert path.read_bytes() == (
        "élan = 10 ü\n".encode() + "garçon = 20 ü\n".encode("latin-1") + b"tail\n"
    )


async def test_text_a_legacy_file_cannot_hold_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "l.txt"
    # 0x81 is not cp1252: that line can only be latin-1, which has no "€".
    original = "caf\u00e9 \x81\nend\n".encode("latin-1")
    path.write_bytes(original)
    await _read(context, path)
    for tool, raw in (
        (EDIT, {"file_path": str(path), "old_string": "café \x81", "new_string": "€ \x81"}),
        (WRITE, {"file_path": str(path), "content": "€ \x81\nend\n"}),
    ):
        status, message = await call_tool(tool, raw, context)
        assert status == "invalid" and "latin-1 cannot represent" in message, message
    assert path.read_bytes() == original
    status, _ = await call_tool(
        EDIT, {"file_path": str(path), "old_string": "café", "new_string": "cafés"}, context
    )
    assert status == "ok" and path.read_bytes() == original.replace(b"caf\xe9", b"caf\xe9s")


async def test_text_a_legacy_line_of_a_mixed_file_cannot_hold_is_refused(tmp_path: Path) -> None:
    """Writing that line as UTF-8 instead would change its untouched bytes (\xe9 -> \xc3\xa9):
    found by the black-box attack."""
    context = make_context(tmp_path)
    path = tmp_path / "m.txt"
    original = b"caf\xe9 latin1 line\r\n\x80\x81\x8d\x8f\x90\x9d raw c1\nutf8 na\xc3\xafve\n"
    path.write_bytes(original)
    await _read(context, path)
    for old, new in (("raw c1", "raw \u4e2d"), ("latin1", "latin1 \u4e2d")):
        status, message = await call_tool(
            EDIT, {"file_path": str(path), "old_string": old, "new_string": new}, context
        )
        assert status == "invalid" and "cannot represent" in message, message
    assert path.read_bytes() == original
    status, _ = await call_tool(
        EDIT, {"file_path": str(path), "old_string": "na\u00efve", "new_string": "\u4e2d"}, context
    )
    assert status == "ok"  # a UTF-8 line takes it
    assert path.read_bytes() == original.replace(b"na\xc3\xafve", "\u4e2d".encode())


@pytest.mark.parametrize("tool", ["Write", "Edit"])
async def test_a_change_with_its_mtime_restored_is_still_a_change(
    tmp_path: Path, tool: str
) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "t.txt"
    path.write_text("value = 1\n")
    await _read(context, path)
    before = os.stat(path)
    path.write_text("value = 9\n")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r
    raw: dict[str, Any] = (
        {"file_path": str(path), "content": "value = 2\n"}
        if tool == "Write"
        else {"file_path": str(path), "old_string": "value", "new_string": "v"}
    )
    status, message = await call_tool(WRITE if tool == "Write" else EDIT, raw, context)
    assert (status, message) == ("invalid", CHANGED)
    assert path.read_text() == "value = 9\n"


async def test_a_touched_but_unchanged_file_is_still_fresh(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "t.txt"
    path.write_text("value = 1\n")
    await _read(context, path)
    os.utime(path, (1, 1))
    status, _ = await call_tool(WRITE, {"file_path": str(path), "content": "v\n"}, context)
    assert status == "ok" and path.read_text() == "v\n"


ALPHABET = "abc xyz=;é€ü–ß\t"  # ASCII, latin-1, cp1252-only and UTF-8-only characters


def _random_file(rng: Any) -> bytes:
    eol = rng.choice([b"\n", b"\r\n"])
    kind = rng.choice(["utf-8", "latin-1", "cp1252", "mixed", "bom", "utf-16-le", "utf-16-be"])
    lines = []
    for i in range(rng.randint(1, 12)):
        text = f"{i}:" + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
        codec = {"mixed": rng.choice(["utf-8", "cp1252"]), "bom": "utf-8"}.get(kind, kind)
        lines.append(text.encode(codec, "replace") + eol.decode().encode(codec))
    data = b"".join(lines)
    if rng.random() < 0.3:
        data = data[: -len(eol.decode().encode(codec))]  # no final newline
    return {"bom": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(
        kind, b""
    ) + data


async def test_random_edits_change_no_byte_outside_the_edited_lines(tmp_path: Path) -> None:
    """Random files, random edits through the real tools: the bytes before the first changed
    line and after the last are identical, every time."""
    import random

    from tools.files.textfile import load

    rng = random.Random(5)
    edits = 0
    for n in range(150):
        context = make_context(tmp_path)
        path = tmp_path / f"r{n}.txt"
        original = _random_file(rng)
        path.write_bytes(original)
        await _read(context, path)
        before = load(str(path))
        lines = before.lines
        pick = rng.randrange(len(lines))
        old = lines[pick].rstrip("\n")
        if not old or before.text.count(old) != 1:
            continue
        new = f"{pick}:" + "".join(rng.choice("abc xyz=") for _ in range(rng.randint(0, 9)))
        if new == old:
            continue
        status, data = await call_tool(
            EDIT, {"file_path": str(path), "old_string": old, "new_string": new}, context
        )
        assert status == "ok", data
        edits += 1
        after = path.read_bytes()
        start = before.ends[pick - 1] if pick else len(before.bom)
        end = before.ends[pick]
        tail = len(original) - end
        assert after[:start] == original[:start], n
        assert after[len(after) - tail :] == original[end:], n
        # ...and the edited line reads back as the new text.
        assert load(str(path)).lines[pick].rstrip("\n") == new
    print(f"\nrandom edits={edits}")
    assert edits > 100


async def test_replace_all_across_lines_of_both_encodings_keeps_each_lines_encoding(
    tmp_path: Path,
) -> None:
    """One codec for the whole changed span refused the UTF-8 line's "→" as "not cp1252" (and
    would have re-encoded an unchanged UTF-8 "é" between two changed cp1252 lines)."""
    context = make_context(tmp_path)
    path = tmp_path / "m.txt"
    lines = [
        "caf\u00e9 x\n".encode("cp1252"),
        "arrow \u2192 x\n".encode(),
        "unchanged \u00e9l\u00e8ve\n".encode(),
        "na\u00efve x\n".encode("cp1252"),
        b"end\n",
    ]
    path.write_bytes(b"".join(lines))
    await _read(context, path)
    status, data = await call_tool(
        EDIT,
        {"file_path": str(path), "old_string": " x", "new_string": " y", "replace_all": True},
        context,
    )
    assert status == "ok", data
    assert path.read_bytes() == b"".join(line.replace(b" x\n", b" y\n") for line in lines)


async def test_a_refusal_in_a_mixed_file_names_the_line_and_its_encoding(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "m.txt"
    original = "utf8 \u00e9 x\n".encode() + "legacy \u00e9 x\n".encode("cp1252")
    path.write_bytes(original)
    await _read(context, path)
    status, message = await call_tool(
        EDIT,
        {"file_path": str(path), "old_string": "x", "new_string": "\u4e2d", "replace_all": True},
        context,
    )
    assert status == "invalid" and "Line 2 of this file of mixed encodings is cp1252" in message
    assert path.read_bytes() == original
