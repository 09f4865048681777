"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook the model has read.

Cells are found by their `id`, or, as Claude Code does for notebooks whose cells have none (and as
Read shows them), by `cell-N` meaning the cell at index N. The notebook is rewritten atomically with
its own JSON indent and key order, so a one-cell edit is a one-cell diff.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolError,
    ToolInput,
    ToolPreview,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.files import textfile
from tools.files.common import PathArgument, check_path
from tools.files.paths import is_notebook, missing_file_message
from tools.files.preview import current_file, diff_preview
from tools.files.readstate import record_written, write_journal
from tools.write import file_state_error

NOT_NOTEBOOK = (
    "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the "
    "FileEdit tool."
)
NEEDS_TYPE = "Cell type is required when using edit_mode=insert."
NEEDS_ID = "Cell ID must be specified when not inserting a new cell."
INVALID_JSON = "Notebook is not valid JSON."
_INDEX_ID = re.compile(r"^cell-(\d+)$")


class NotebookEditInput(ToolInput):
    notebook_path: str = Field(
        description=(
            "The absolute path to the Jupyter notebook file to edit (must be absolute, not "
            "relative)"
        )
    )
    cell_id: str | None = Field(
        default=None,
        description=(
            "The ID of the cell to edit. When inserting a new cell, the new cell will be inserted "
            "after the cell with this ID, or at the beginning if not specified."
        ),
    )
    new_source: str = Field(description="The new source for the cell")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None,
        description=(
            "The type of the cell (code or markdown). If not specified, it defaults to the current "
            "cell type. If using edit_mode=insert, this is required."
        ),
    )
    edit_mode: Literal["replace", "insert", "delete"] | None = Field(
        default=None,
        description="The type of edit to make (replace, insert, delete). Defaults to replace.",
    )


@dataclass(frozen=True)
class NotebookChange:
    """What one edit did: the model reads `message`, the UI shows `summary`."""

    path: str
    mode: Literal["replace", "insert", "delete"]
    cell_id: str
    message: str


def find_cell(cells: list[Any], cell_id: str) -> int | None:
    """The index of the cell with this id, else of `cell-N` read as index N, else None."""
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("id") == cell_id:
            return index
    match = _INDEX_ID.match(cell_id)
    if match and int(match.group(1)) < len(cells):
        return int(match.group(1))
    return None


def detect_indent(text: str) -> int | str | None:
    """The indent the notebook was written with (Jupyter writes 1; Claude Code writes 1)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return len(lead) if set(lead) == {" "} else lead
    return None if "\n" not in text.strip() else 1


def _uses_cell_ids(nb: Mapping[str, Any]) -> bool:
    # Cell ids exist from nbformat 4.5 on; older notebooks must not gain the field.
    major = nb.get("nbformat", 4)
    minor = nb.get("nbformat_minor", 0)
    return isinstance(major, int) and isinstance(minor, int) and (major, minor) >= (4, 5)


def _as_source(text: str) -> list[str]:
    # Jupyter's own on-disk shape: a list of lines, each but the last keeping its "\n".
    return text.splitlines(keepends=True)


def apply_edit(nb: dict[str, Any], input: NotebookEditInput) -> NotebookChange:
    """Change `nb` in place. Raises ToolError with a message for the model."""
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise ToolError("Notebook has no list of cells.")
    mode = input.edit_mode or "replace"
    if input.cell_id is None:
        if mode != "insert":
            raise ToolError(NEEDS_ID)
        index = 0
    else:
        found = find_cell(cells, input.cell_id)
        if found is None:
            raise ToolError(f'Cell with ID "{input.cell_id}" not found in notebook.')
        index = found + 1 if mode == "insert" else found
    if mode == "delete":
        removed = cells.pop(index)
        cell_id = str(removed.get("id") or input.cell_id) if isinstance(removed, dict) else ""
        return NotebookChange("", "delete", cell_id, f"Deleted cell {input.cell_id}")
    if mode == "insert":
        kind = input.cell_type or "code"
        cell: dict[str, Any] = {"cell_type": kind}
        new_id = ""
        if _uses_cell_ids(nb):
            new_id = secrets.token_hex(4)
            cell["id"] = new_id
        cell["metadata"] = {}
        cell["source"] = _as_source(input.new_source)
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        cells.insert(index, cell)
        shown = new_id or f"cell-{index}"
        return NotebookChange("", "insert", shown, f"Inserted cell {shown} with {input.new_source}")
    target = cells[index]
    if not isinstance(target, dict):
        raise ToolError(f'Cell "{input.cell_id}" is not a cell object.')
    target["source"] = _as_source(input.new_source)
    if input.cell_type is not None and input.cell_type != target.get("cell_type"):
        target["cell_type"] = input.cell_type
        if input.cell_type == "markdown":
            target.pop("outputs", None)
            target.pop("execution_count", None)
    if target.get("cell_type") == "code":
        # The old outputs belong to the old source.
        target["execution_count"] = None
        target["outputs"] = []
    return NotebookChange(
        "", "replace", str(input.cell_id), f"Updated cell {input.cell_id} with {input.new_source}"
    )


class NotebookEditTool(PathArgument, Tool[NotebookEditInput]):
    name = "NotebookEdit"
    file_view = "write"
    touches_file = True
    search_hint = "edit jupyter notebook ipynb cells"
    input_model = NotebookEditInput
    permission_kind = "path_write"
    subject_field = "notebook_path"

    def is_destructive(self, input: NotebookEditInput) -> bool:
        return input.edit_mode == "delete"

    def summary(self, input: NotebookEditInput) -> str:
        mode = input.edit_mode or "replace"
        where = f" {input.cell_id}" if input.cell_id else ""
        return f"{input.notebook_path} ({mode} cell{where})"

    def result_summary(self, data: Any) -> str:
        if isinstance(data, NotebookChange):
            verb = {"replace": "Updated", "insert": "Inserted", "delete": "Deleted"}[data.mode]
            return f"{verb} cell {data.cell_id}"
        return ""

    def preview(self, input: NotebookEditInput, context: ToolContext) -> ToolPreview | None:
        """The diff this edit makes to the notebook file as it is now; the input's fields when
        it cannot apply (the call will then fail and say why)."""
        path = context.resolve_path(input.notebook_path)
        if current_file(path) is None:
            return super().preview(input, context)
        try:
            nb, current = _load(path)
            apply_edit(nb, input)
        except (ToolError, OSError):
            return super().preview(input, context)
        return diff_preview(current.text, _dump_like(nb, current), path)

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, NotebookChange):
            return data.message
        return super().to_result_content(data)

    async def validate_input(
        self, input: NotebookEditInput, context: ToolContext
    ) -> ValidationResult:
        path, failure = check_path(self.name, input.notebook_path, context, "write")
        if failure is not None:
            return failure
        if not is_notebook(path):
            return ValidationResult.failure(NOT_NOTEBOOK, error_code=2)
        if input.edit_mode == "insert" and input.cell_type is None:
            return ValidationResult.failure(NEEDS_TYPE, error_code=5)
        if input.cell_id is None and input.edit_mode != "insert":
            return ValidationResult.failure(NEEDS_ID, error_code=6)
        if not context.permissions.is_in_working_dirs(path):
            # Outside the working folders the permission check answers first; call() checks the
            # file then, so no answer tells whether it exists or was read.
            return ValidationResult.success()
        problem = await asyncio.to_thread(self._problem, context, path, input)
        if problem:
            return ValidationResult.failure(problem, error_code=8)
        return ValidationResult.success()

    def _problem(self, context: ToolContext, path: str, input: NotebookEditInput) -> str | None:
        if not os.path.exists(path):
            return missing_file_message(path, context.cwd)
        problem = file_state_error(path, context)
        if problem:
            return problem
        # Found out now, so the user is not asked to approve an edit that cannot apply.
        try:
            nb, _ = _load(path)
            apply_edit(nb, input)
        except ToolError as exc:
            return exc.message
        except OSError as exc:
            return f"Could not read {path}: {exc.strerror or exc}"
        return None

    async def call(
        self,
        input: NotebookEditInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        path = context.resolve_path(input.notebook_path)
        try:
            change = await asyncio.to_thread(self._edit, context, path, input)
        except PermissionError:
            raise ToolError(f"Permission denied: cannot write {path}.") from None
        except OSError as exc:
            raise ToolError(f"Could not edit {path}: {exc}") from None
        return ToolResult(data=change)

    def _edit(self, context: ToolContext, path: str, input: NotebookEditInput) -> NotebookChange:
        if not os.path.exists(path):
            raise ToolError(missing_file_message(path, context.cwd))
        # Checked again: the notebook may have changed while the user looked at the approval.
        problem = file_state_error(path, context)
        if problem:
            raise ToolError(problem)
        nb, current = _load(path)
        change = apply_edit(nb, input)
        text = _dump_like(nb, current)
        # Only the changed lines get new bytes: the rest of the file stays byte for byte.
        data = textfile.render(current, text)
        textfile.atomic_write(path, data, current.mode, journal=write_journal(context))
        record_written(context, path, data)
        return NotebookChange(path, change.mode, change.cell_id, change.message)


def _dump_like(nb: dict[str, Any], current: textfile.TextFile) -> str:
    """The notebook as JSON written the way the file was (its indent, its final newline)."""
    text = json.dumps(nb, indent=detect_indent(current.text), ensure_ascii=False)
    return text + "\n" if current.text.endswith("\n") else text


def _load(path: str) -> tuple[dict[str, Any], textfile.TextFile]:
    try:
        current = textfile.load(path)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    try:
        nb = json.loads(current.text)
    except json.JSONDecodeError:
        raise ToolError(INVALID_JSON) from None
    if not isinstance(nb, dict):
        raise ToolError(INVALID_JSON)
    return nb, current
