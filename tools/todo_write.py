"""TodoWrite: the session's task list, replaced whole on each call, and shown to the user as a plan."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import Field

from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
)
from tools.decisions import DecisionReason, PermissionDecision, ValidationResult

TodoStatus = Literal["pending", "in_progress", "completed"]
MAX_TODOS = 100

RESULT_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)


class TodoItemInput(ToolInput):
    content: str = Field(min_length=1, description="The task, in the imperative: 'Run the tests'")
    status: TodoStatus = Field(description="pending, in_progress or completed")
    active_form: str = Field(
        alias="activeForm",
        min_length=1,
        description="The task in the present continuous, shown while it runs: 'Running the tests'",
    )


class TodoWriteInput(ToolInput):
    todos: list[TodoItemInput] = Field(description="The updated todo list")


@dataclass(frozen=True)
class Todo:
    content: str
    status: TodoStatus
    active_form: str


@dataclass(frozen=True)
class TodoListChanged:
    """Emitted through `context.emit` on every TodoWrite, for the UI's plan view."""

    todos: tuple[Todo, ...]
    previous: tuple[Todo, ...]


def current_todos(context: ToolContext) -> tuple[Todo, ...]:
    value = context.state.get("todos", ())
    return tuple(t for t in value if isinstance(t, Todo)) if isinstance(value, tuple) else ()


class TodoWriteTool(Tool[TodoWriteInput]):
    name = "TodoWrite"
    search_hint = "todo list plan tasks progress checklist"
    input_model = TodoWriteInput

    # It changes only the session's own list, no file and nothing outside: read-only for the
    # permission system, so plan mode (which refuses writes) keeps it.
    def is_read_only(self, input: TodoWriteInput) -> bool:
        return True

    def summary(self, input: TodoWriteInput) -> str:
        done = sum(1 for t in input.todos if t.status == "completed")
        return f"{done}/{len(input.todos)} done"

    async def check_permissions(
        self, input: TodoWriteInput, context: ToolContext
    ) -> PermissionDecision:
        return PermissionDecision.allow(
            DecisionReason("tool", "TodoWrite only changes the session's todo list")
        )

    async def validate_input(self, input: TodoWriteInput, context: ToolContext) -> ValidationResult:
        if len(input.todos) > MAX_TODOS:
            return ValidationResult.failure(
                f"Too many todos ({len(input.todos)}); keep the list to at most {MAX_TODOS} items.",
                1,
            )
        return ValidationResult.success()

    async def call(
        self,
        input: TodoWriteInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        previous = current_todos(context)
        todos = tuple(Todo(t.content, t.status, t.active_form) for t in input.todos)
        # A list whose every item is done has served its purpose; the next plan starts empty.
        stored = () if todos and all(t.status == "completed" for t in todos) else todos
        context.emit(TodoListChanged(todos=todos, previous=previous))

        def modifier(ctx: ToolContext) -> ToolContext:
            return replace(ctx, state={**ctx.state, "todos": stored})

        data = {
            "message": RESULT_TEXT,
            "oldTodos": [_dump(t) for t in previous],
            "newTodos": [_dump(t) for t in todos],
        }
        return ToolResult(data, context_modifier=modifier)

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, dict) and "message" in data:
            return str(data["message"])
        return super().to_result_content(data)

    # No result summary of its own: the call's label says "1/3 done" already (the head showed
    # it twice, "0/2 done  0/2 tasks done").


def _dump(todo: Todo) -> dict[str, str]:
    return {"content": todo.content, "status": todo.status, "activeForm": todo.active_form}


def todos_from_history(messages: Sequence[Mapping[str, Any]]) -> tuple[Todo, ...]:
    """The todo list as the newest successful TodoWrite in a resumed conversation left it.

    The list lives in the context's state, which a new process starts without: a session
    resumed with --continue must not lose the plan (a compaction would then drop it for good).
    """
    failed: set[str] = set()
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            for block in content:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_result"
                    and block.get("is_error")
                ):
                    failed.add(str(block.get("tool_use_id")))
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for block in reversed(content):
            if not (isinstance(block, dict) and block.get("type") == "tool_use"):
                continue
            if block.get("name") != "TodoWrite" or str(block.get("id")) in failed:
                continue
            try:
                parsed = TodoWriteInput.model_validate(block.get("input"))
            except ValueError:
                continue
            todos = tuple(Todo(t.content, t.status, t.active_form) for t in parsed.todos)
            return () if all(t.status == "completed" for t in todos) else todos
    return ()
