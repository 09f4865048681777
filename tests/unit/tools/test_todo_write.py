"""TodoWrite keeps the session's list in the context and emits an event for the UI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.base import InputError, ToolContext
from tools.todo_write import RESULT_TEXT, Todo, TodoListChanged, TodoWriteTool, current_todos


def make_ctx(tmp_path: Path, events: list[object]) -> ToolContext:
    return ToolContext(
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        working_dirs=(str(tmp_path),),
        emit=events.append,
    )


async def write(ctx: ToolContext, todos: list[dict[str, str]]) -> ToolContext:
    tool = TodoWriteTool()
    parsed = tool.parse_input({"todos": todos})
    assert (await tool.validate_input(parsed, ctx)).ok
    result = await tool.call(parsed, ctx, None, {}, lambda p: None)  # type: ignore[arg-type]
    assert tool.to_result_content(result.data) == RESULT_TEXT
    assert result.context_modifier is not None
    return result.context_modifier(ctx)


async def test_list_stored_and_event_emitted(tmp_path: Path) -> None:
    events: list[object] = []
    ctx = make_ctx(tmp_path, events)
    items = [
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        {"content": "Fix bug", "status": "pending", "activeForm": "Fixing bug"},
    ]
    ctx = await write(ctx, items)
    expected = (
        Todo("Run tests", "in_progress", "Running tests"),
        Todo("Fix bug", "pending", "Fixing bug"),
    )
    assert current_todos(ctx) == expected
    assert events == [TodoListChanged(todos=expected, previous=())]
    items[0]["status"] = "completed"
    items[1]["status"] = "in_progress"
    ctx = await write(ctx, items)
    last = events[-1]
    assert isinstance(last, TodoListChanged)
    assert last.previous == expected and last.todos[0].status == "completed"
    for item in items:
        item["status"] = "completed"
    ctx = await write(ctx, items)
    assert current_todos(ctx) == ()  # a finished plan is cleared


async def test_bad_inputs(tmp_path: Path) -> None:
    tool = TodoWriteTool()
    with pytest.raises(InputError, match="status"):
        tool.parse_input({"todos": [{"content": "a", "status": "done", "activeForm": "A"}]})
    with pytest.raises(InputError, match="activeForm"):
        tool.parse_input({"todos": [{"content": "a", "status": "pending"}]})
    with pytest.raises(InputError, match="todos"):
        tool.parse_input({"todos": "write tests"})
    with pytest.raises(InputError):
        tool.parse_input({"todos": [{"content": "", "status": "pending", "activeForm": "A"}]})


async def test_permissions_and_schema(tmp_path: Path) -> None:
    tool = TodoWriteTool()
    parsed = tool.parse_input({"todos": []})
    ctx = make_ctx(tmp_path, [])
    assert (await tool.check_permissions(parsed, ctx)).behavior == "allow"
    item = tool.input_schema()["$defs"]["TodoItemInput"]
    assert set(item["properties"]) == {"content", "status", "activeForm"}
