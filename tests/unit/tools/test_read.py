"""Read through the Tool API on real files: text windows, notices, media, and refused inputs."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.tool_calls import call_tool_text, make_context
from tools.base import ToolContext, api_schema
from tools.read import EMPTY_FILE, MAX_OUTPUT_CHARS, ReadInput, ReadResult, ReadTool

TOOL = ReadTool()
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def run(raw: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    """("input" | "invalid" | "error", message) or ("ok", content) for one model call."""
    return await call_tool_text(TOOL, raw, context)


async def test_numbered_lines_compact_form(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    assert await run({"file_path": str(tmp_path / "a.txt")}, ctx(tmp_path)) == (
        "ok",
        "1\tone\n2\ttwo\n3\tthree",
    )


async def test_offset_and_limit_given_as_strings_and_relative_path(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    status, text = await run({"file_path": "a.txt", "offset": "10", "limit": "3"}, ctx(tmp_path))
    assert status == "ok"
    assert text == "10\tline 10\n11\tline 11\n12\tline 12"


async def test_crlf_and_no_final_newline(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\nlast")
    assert await run({"file_path": "w.txt"}, ctx(tmp_path)) == ("ok", "1\ta\n2\tb\n3\tlast")


async def test_default_limit_is_2000_lines(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x\n" * 2500)
    status, text = await run({"file_path": "big.txt"}, ctx(tmp_path))
    assert status == "ok"
    lines = text.split("\n")
    assert len(lines) == 2000 and lines[-1] == "2000\tx"


async def test_long_lines_cut_at_2000_chars(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("é" * 5000 + "\nshort\n")
    _, text = await run({"file_path": "long.txt"}, ctx(tmp_path))
    first, second = text.split("\n")
    assert first.startswith("1\t" + "é" * 2000) and "é" * 2001 not in first
    assert "truncated" in first
    assert second == "2\tshort"


async def test_empty_file_notice(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("")
    assert await run({"file_path": "e.txt"}, ctx(tmp_path)) == ("ok", EMPTY_FILE)


async def test_offset_past_the_end_notice(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("a\nb\nc\n")
    status, text = await run({"file_path": "s.txt", "offset": 50}, ctx(tmp_path))
    assert status == "ok"
    assert "shorter than the provided offset (50)" in text and "The file has 3 lines" in text


async def test_huge_offset_and_limit(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("a\nb\n")
    status, text = await run(
        {"file_path": "s.txt", "offset": 10**15, "limit": 10**12}, ctx(tmp_path)
    )
    assert status == "ok" and "The file has 2 lines" in text
    status, text = await run({"file_path": "s.txt", "limit": 10**12}, ctx(tmp_path))
    assert (status, text) == ("ok", "1\ta\n2\tb")


async def test_output_capped_with_continuation_hint(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(("y" * 1500 + "\n") * 1000)
    status, text = await run({"file_path": "wide.txt"}, ctx(tmp_path))
    assert status == "ok"
    assert len(text) < MAX_OUTPUT_CHARS + 500
    shown = text.split("\n\n[Output stopped after line ")[1]
    last = int(shown.split(" ")[0])
    assert f"Continue with offset={last + 1}" in text


async def test_missing_file_names_cwd_and_near_miss(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("x")
    status, text = await run({"file_path": "config.yml"}, ctx(tmp_path))
    assert status == "error"
    assert "File does not exist." in text and str(tmp_path) in text
    assert "config.yaml" in text


async def test_directory_refused_with_hint(tmp_path: Path) -> None:
    status, text = await run({"file_path": str(tmp_path)}, ctx(tmp_path))
    assert status == "error" and "directory" in text and "Glob" in text and "ls" in text


@pytest.mark.parametrize(
    "path", ["/dev/zero", "/dev/urandom", "/dev/stdin", "/dev/tty", "/proc/self/fd/0"]
)
async def test_blocking_devices_refused_at_validation(tmp_path: Path, path: str) -> None:
    status, text = await run({"file_path": path}, ctx(tmp_path))
    assert status == "invalid" and "device" in text


@pytest.mark.parametrize("path", ["//evil-host/share/x.txt", "\\\\evil-host\\share\\x.txt"])
async def test_unc_refused_before_io(tmp_path: Path, path: str) -> None:
    status, text = await run({"file_path": path}, ctx(tmp_path))
    assert status == "invalid" and "UNC" in text


async def test_binary_extension_refused(tmp_path: Path) -> None:
    (tmp_path / "a.zip").write_bytes(b"PK\x03\x04")
    status, text = await run({"file_path": "a.zip"}, ctx(tmp_path))
    assert status == "invalid" and "binary" in text


async def test_fifo_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    status, text = await run({"file_path": "pipe"}, ctx(tmp_path))
    assert status == "error" and "not a regular file" in text


async def test_bad_inputs_get_clear_messages(tmp_path: Path) -> None:
    status, text = await run({}, ctx(tmp_path))
    assert status == "input" and "`file_path` is missing" in text
    status, text = await run({"file_path": "a", "offset": "ten"}, ctx(tmp_path))
    assert status == "input" and "offset" in text
    status, text = await run({"file_path": "a", "limit": 0}, ctx(tmp_path))
    assert status == "input" and "limit" in text
    status, text = await run({"file_path": "a", "bogus": 1}, ctx(tmp_path))
    assert status == "input" and "bogus" in text


async def test_pages_only_for_pdf_and_syntax_checked(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    status, text = await run({"file_path": "a.txt", "pages": "1-2"}, ctx(tmp_path))
    assert status == "invalid" and "PDF" in text
    for bad in ("x", "5-2", "0", "1-30"):
        status, text = await run({"file_path": "d.pdf", "pages": bad}, ctx(tmp_path))
        assert status == "invalid", bad


async def test_image_becomes_image_block(tmp_path: Path) -> None:
    # A JPEG under a .png name: the media type follows the bytes, not the name.
    (tmp_path / "pic.png").write_bytes(PNG)
    status, content = await run({"file_path": "pic.png"}, ctx(tmp_path))
    assert status == "ok"
    assert content[0]["type"] == "image"
    assert content[0]["source"]["media_type"] == "image/png"
    assert base64.b64decode(content[0]["source"]["data"]) == PNG
    (tmp_path / "fake.jpg").write_bytes(b"not an image")
    status, text = await run({"file_path": "fake.jpg"}, ctx(tmp_path))
    assert status == "error" and "not a PNG, JPEG" in text


def _pdf(path: Path, pages: int) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    with open(path, "wb") as f:
        writer.write(f)


async def test_pdf_pages(tmp_path: Path) -> None:
    _pdf(tmp_path / "d.pdf", 25)
    status, text = await run({"file_path": "d.pdf"}, ctx(tmp_path))
    assert status == "error" and "25 pages" in text and "pages" in text
    status, text = await run({"file_path": "d.pdf", "pages": 3}, ctx(tmp_path))
    assert status == "ok" and "--- Page 3 ---" in text and "--- Page 4 ---" not in text
    status, text = await run({"file_path": "d.pdf", "pages": "20-25"}, ctx(tmp_path))
    assert status == "ok" and "pages 20-25 of 25" in text
    status, text = await run({"file_path": "d.pdf", "pages": "26"}, ctx(tmp_path))
    assert status == "error" and "does not exist" in text


async def test_notebook_cell_by_cell(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "m1", "source": ["# Title\n", "text"]},
            {
                "cell_type": "code",
                "id": "c1",
                "execution_count": 2,
                "source": "print(1)",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
            },
        ],
        "metadata": {"language_info": {"name": "python"}},
    }
    (tmp_path / "n.ipynb").write_text(json.dumps(nb))
    status, text = await run({"file_path": "n.ipynb"}, ctx(tmp_path))
    assert status == "ok"
    assert '<cell id="m1" type="markdown">\n# Title\ntext\n</cell>' in text
    assert 'id="c1"' in text and "print(1)" in text and '<output cell="c1">\n1\n' in text
    (tmp_path / "bad.ipynb").write_text("{not json")
    status, text = await run({"file_path": "bad.ipynb"}, ctx(tmp_path))
    assert status == "error" and "not a valid notebook" in text


async def test_records_what_was_read(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    await run({"file_path": "a.txt", "limit": 1}, context)
    record = context.read_files.get(str(tmp_path / "a.txt"))
    assert record is not None and not record.full and record.limit == 1
    await run({"file_path": "a.txt"}, context)
    record = context.read_files.get(str(tmp_path / "a.txt"))
    assert record is not None and record.full


def test_declarations_and_schema(tmp_path: Path) -> None:
    parsed = TOOL.parse_input({"file_path": "~/x.txt"})
    assert TOOL.is_concurrency_safe(parsed) and TOOL.is_read_only(parsed)
    assert TOOL.permission_kind == "path_read" and TOOL.path_reach == "path"
    assert TOOL.max_result_size_chars == float("inf")
    assert TOOL.permission_subject(parsed) == os.path.expanduser("~/x.txt")
    observed = {"file_path": "sub/../a.txt"}
    TOOL.backfill_observable_input(observed, ctx(tmp_path))
    assert observed["file_path"] == str(tmp_path / "a.txt")
    schema = api_schema(ReadInput)
    assert set(schema["properties"]) == {"file_path", "offset", "limit", "pages"}
    assert schema["required"] == ["file_path"]
    assert "Read" in TOOL.description() and len(TOOL.description()) > 500
    assert TOOL.result_summary(ReadResult("text", "/x", "1\ta", num_lines=1)) == "Read 1 line"
