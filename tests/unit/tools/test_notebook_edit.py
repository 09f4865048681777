"""NotebookEdit through the Tool API on real notebooks: by id and by index, insert, delete,
read-first, formatting kept, atomic write. Result texts are Claude Code 2.1.332's (measured)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.support.tool_calls import call_tool_text, make_context
from tools.base import ToolContext
from tools.files.readstate import CHANGED, NOT_READ
from tools.notebook_edit import NEEDS_ID, NEEDS_TYPE, NOT_NOTEBOOK, NotebookEditTool
from tools.read import ReadTool

NB_EDIT = NotebookEditTool()


def notebook(*, ids: bool = True, minor: int = 5) -> dict[str, Any]:
    def cell(n: int, kind: str) -> dict[str, Any]:
        c: dict[str, Any] = {"cell_type": kind, "metadata": {"tags": [f"t{n}"]}}
        if ids:
            c["id"] = f"c{n}"
        c["source"] = [f"line {n}\n", "end"]
        if kind == "code":
            c["execution_count"] = n
            c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["out\n"]}]
        return c

    return {
        "cells": [cell(0, "code"), cell(1, "markdown"), cell(2, "code")],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": minor,
    }


def write_nb(path: Path, nb: dict[str, Any], indent: int = 1) -> None:
    path.write_text(json.dumps(nb, indent=indent) + "\n")


async def read_first(context: ToolContext, path: Path) -> None:
    kind, _ = await call_tool_text(ReadTool(), {"file_path": str(path)}, context)
    assert kind == "ok"


async def edit(context: ToolContext, **raw: Any) -> tuple[str, Any]:
    return await call_tool_text(NB_EDIT, raw, context)


async def test_replace_by_id_clears_outputs_and_keeps_everything_else(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "n.ipynb"
    write_nb(path, notebook())
    await read_first(context, path)
    kind, text = await edit(context, notebook_path=str(path), cell_id="c2", new_source="y = 2\nz")
    assert (kind, text) == ("ok", "Updated cell c2 with y = 2\nz")
    nb = json.loads(path.read_text())
    assert nb["cells"][2]["source"] == ["y = 2\n", "z"]
    assert nb["cells"][2]["outputs"] == [] and nb["cells"][2]["execution_count"] is None
    assert nb["cells"][2]["metadata"] == {"tags": ["t2"]}
    assert nb["cells"][0] == notebook()["cells"][0]  # untouched cells are byte-equal
    assert nb["metadata"] == notebook()["metadata"]
    # Jupyter's indent (1) and the trailing newline are kept: only the edited cell's lines differ.
    expected = notebook()
    expected["cells"][2].update(source=["y = 2\n", "z"], execution_count=None, outputs=[])
    assert path.read_text() == json.dumps(expected, indent=1) + "\n"


async def test_indent_two_is_kept_and_no_temp_file_is_left(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "n.ipynb"
    write_nb(path, notebook(), indent=2)
    await read_first(context, path)
    assert (await edit(context, notebook_path=str(path), cell_id="c1", new_source="# T"))[0] == "ok"
    assert path.read_text().startswith('{\n  "cells": [\n    {')
    assert os.listdir(tmp_path) == ["n.ipynb"]


async def test_insert_after_id_at_start_and_delete(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "n.ipynb"
    write_nb(path, notebook())
    await read_first(context, path)
    kind, text = await edit(
        context,
        notebook_path=str(path),
        cell_id="c0",
        new_source="# Title",
        edit_mode="insert",
        cell_type="markdown",
    )
    assert kind == "ok" and text.startswith("Inserted cell ") and text.endswith(" with # Title")
    nb = json.loads(path.read_text())
    assert [c["cell_type"] for c in nb["cells"]] == ["code", "markdown", "markdown", "code"]
    new = nb["cells"][1]
    assert new["source"] == ["# Title"] and len(new["id"]) == 8 and "outputs" not in new
    # A second edit needs no new Read; insert without a cell_id goes first.
    kind, _ = await edit(
        context,
        notebook_path=str(path),
        new_source="import os",
        edit_mode="insert",
        cell_type="code",
    )
    nb = json.loads(path.read_text())
    assert nb["cells"][0]["source"] == ["import os"] and nb["cells"][0]["outputs"] == []
    kind, text = await edit(
        context, notebook_path=str(path), cell_id="c2", new_source="", edit_mode="delete"
    )
    assert (kind, text) == ("ok", "Deleted cell c2")
    assert [c.get("id") for c in json.loads(path.read_text())["cells"]][-1] == "c1"


async def test_cells_without_ids_are_found_by_index(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "old.ipynb"
    write_nb(path, notebook(ids=False, minor=4))
    await read_first(context, path)
    kind, text = await edit(context, notebook_path=str(path), cell_id="cell-1", new_source="md")
    assert (kind, text) == ("ok", "Updated cell cell-1 with md")
    kind, text = await edit(
        context,
        notebook_path=str(path),
        cell_id="cell-0",
        new_source="x",
        edit_mode="insert",
        cell_type="code",
    )
    # nbformat 4.4 has no cell ids: the new cell gets none, and is named by its index.
    assert (kind, text) == ("ok", "Inserted cell cell-1 with x")
    nb = json.loads(path.read_text())
    assert all("id" not in c for c in nb["cells"]) and nb["cells"][2]["source"] == ["md"]


async def test_refusals_in_claude_codes_words(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "n.ipynb"
    write_nb(path, notebook())
    p = str(path)
    assert await edit(context, notebook_path=p, cell_id="c0", new_source="x") == (
        "invalid",
        NOT_READ,
    )
    await read_first(context, path)
    assert await edit(context, notebook_path=p, cell_id="nope", new_source="z") == (
        "invalid",
        'Cell with ID "nope" not found in notebook.',
    )
    assert await edit(context, notebook_path=p, new_source="z") == ("invalid", NEEDS_ID)
    assert await edit(context, notebook_path=p, new_source="z", edit_mode="insert") == (
        "invalid",
        NEEDS_TYPE,
    )
    (tmp_path / "a.py").write_text("x\n")
    other = await edit(context, notebook_path=str(tmp_path / "a.py"), cell_id="c0", new_source="")
    assert other == ("invalid", NOT_NOTEBOOK)
    kind, _ = await edit(context, notebook_path=p, cell_id="c0", new_source="x", edit_mode="bad")
    assert kind == "input"
    # Changed on disk since the Read: refused, and the file is left as it was.
    write_nb(path, notebook(), indent=2)
    before = path.read_text()
    assert await edit(context, notebook_path=p, cell_id="c0", new_source="x") == (
        "invalid",
        CHANGED,
    )
    assert path.read_text() == before


async def test_invalid_json_is_refused(tmp_path: Path) -> None:
    context = make_context(tmp_path)
    path = tmp_path / "bad.ipynb"
    path.write_text('{"cells": [')
    await call_tool_text(ReadTool(), {"file_path": str(path)}, context)
    kind, text = await edit(context, notebook_path=str(path), cell_id="c0", new_source="x")
    assert kind == "invalid" and ("not valid JSON" in text or "read" in text.lower())


def test_declarations_are_a_path_write() -> None:
    parsed = NB_EDIT.parse_input({"notebook_path": "~/n.ipynb", "cell_id": "a", "new_source": ""})
    assert NB_EDIT.permission_subject(parsed) == os.path.expanduser("~/n.ipynb")
    assert not NB_EDIT.is_read_only(parsed) and not NB_EDIT.is_concurrency_safe(parsed)
    assert NB_EDIT.permission_kind == "path_write"
    schema = NB_EDIT.input_schema()
    assert schema["required"] == ["notebook_path", "new_source"]
    assert set(schema["properties"]) == {
        "notebook_path",
        "cell_id",
        "new_source",
        "cell_type",
        "edit_mode",
    }
