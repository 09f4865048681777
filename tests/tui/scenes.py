"""Event sequences for the TUI tests: the real engine event types, in the order a turn emits them."""

from __future__ import annotations

import difflib
from typing import Any

from app.engine.events import (
    AppEvent,
    AssistantMessage,
    EngineEvent,
    RequestStarted,
    TextDelta,
    TurnStarted,
)
from app.engine.views import PermissionQuestion
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolRunning, ToolStarted
from app.execution.interfaces import PermissionPrompt
from app.tui.app import LatheApp
from tests.tui.conftest import Views, outcome, question
from tools.base import CallLabel, ToolPreview, ToolProgress
from tools.decisions import DecisionReason
from tools.files.diff import FileChange, unified_diff
from tools.todo_write import Todo, TodoListChanged

MARKDOWN = (
    "Here is the plan:\n\n1. Read the **config** loader\n2. Fix the `theme` lookup\n\n"
    "```python\ndef load(path):\n    return path.read_text()\n```\n"
)


def feed(app: LatheApp, events: list[Any]) -> None:
    """Send the events as a session would (executor events become tool-call views)."""
    views = Views()
    for event in events:
        app.handle_engine_event(views(event))


async def settle(app: LatheApp, pilot: object) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await pilot.pause()
    for block in app.main.conversation.query("AssistantBlock"):
        await block.settle()  # type: ignore[attr-defined]
    await pilot.pause()
    await pilot.pause()


def prompt_and_text(
    text: str = MARKDOWN, prompt: str = "Fix the theme lookup"
) -> list[EngineEvent]:
    events: list[EngineEvent] = [TurnStarted(prompt), RequestStarted(1, "claude-sonnet-4-5")]
    for word in text.split(" "):
        events.append(TextDelta(word + " ", 0))
    return events


def concurrent_tools() -> list[EngineEvent]:
    events: list[EngineEvent] = [TurnStarted("Survey the repo"), RequestStarted(1, "claude")]
    specs = [
        ("r1", "Read", "app/config/loader.py"),
        ("g1", "Grep", '"theme" in app/'),
        ("b1", "Bash", "pytest -q tests/unit"),
        ("w1", "WebFetch", "https://docs.python.org/3/"),
        ("r2", "Read", "README.md"),
    ]
    for tid, name, summary in specs:
        events.append(ToolQueued(tid, name, {}, summary, name != "Bash"))
    for tid, name, _ in specs[:3]:
        events.append(ToolStarted(tid, name, 990.0))
        events.append(ToolRunning(tid, name, 990.0))
    events.append(ToolProgressed("g1", ToolProgress(text="412 files searched", fraction=0.4), 995))
    events.append(ToolProgressed("b1", ToolProgress(output="collected 84 items\n....F....\n"), 996))
    events.append(ToolFinished("r1", outcome("r1", "Read", "1\tline one\n2\tline two"), 0.04))
    return events


def edit_change() -> FileChange:
    old = "def theme(name):\n    return THEMES[name]\n"
    new = "def theme(name):\n    if name not in THEMES:\n        raise ThemeError(name)\n    return THEMES[name]\n"
    diff, added, removed = unified_diff(old, new, "app/themes.py")
    return FileChange("update", "app/themes.py", diff, "The file was updated.", added, removed)


def finished_edit() -> list[EngineEvent]:
    change = edit_change()
    return [
        TurnStarted("Guard unknown themes"),
        RequestStarted(1, "claude"),
        ToolQueued("e1", "Edit", {}, "app/themes.py", False),
        ToolStarted("e1", "Edit", 999.0),
        ToolRunning("e1", "Edit", 999.0),
        ToolFinished("e1", outcome("e1", "Edit", change.message, data=change), 0.12),
    ]


def finished_bash(lines: int = 30) -> list[EngineEvent]:
    text = "\n".join(f"line {i}" for i in range(1, lines + 1))
    return [
        # Bash declares its label and that a long output shows its newest lines.
        ToolQueued(
            "b9",
            "Bash",
            {"command": "seq 30"},
            "seq 30",
            False,
            label=CallLabel("seq 30", "bash"),
            output_focus="tail",
        ),
        ToolStarted("b9", "Bash", 999.0),
        ToolRunning("b9", "Bash", 999.0),
        ToolFinished("b9", outcome("b9", "Bash", text), 1.5),
        AssistantMessage({"role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ]


def bash_prompt(**kw: object) -> PermissionQuestion:
    return question(bash_permission(**kw))


def diff_of(old: str, new: str, path: str) -> str:
    """A unified diff as the tools' previews write it."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm=""
    )
    return "\n".join(lines)


def bash_permission(**kw: object) -> PermissionPrompt:
    return PermissionPrompt(
        tool=None,  # type: ignore[arg-type]
        tool_name="Bash",
        tool_use_id="b1",
        input={"command": "npm run test -- --watch=false"},
        message="Bash needs permission",
        reason=DecisionReason("rule", 'the part "npm run test" is not allowed by any rule'),
        suggestions=("Bash(npm run test:*)",),
        summary="npm run test",
        preview=ToolPreview("command", "npm run test -- --watch=false", language="bash"),
        **kw,  # type: ignore[arg-type]
    )


OLD_THEME = "    return THEMES[name]\n"
NEW_THEME = "    if name not in THEMES:\n        raise ThemeError(name)\n    return THEMES[name]\n"


def edit_prompt() -> PermissionQuestion:
    return question(
        PermissionPrompt(
            tool=None,  # type: ignore[arg-type]
            tool_name="Edit",
            tool_use_id="e1",
            input={
                "file_path": "app/themes.py",
                "old_string": OLD_THEME,
                "new_string": NEW_THEME,
            },
            message="Edit needs permission",
            reason=DecisionReason("mode", "edits need approval in default mode"),
            suggestions=("Edit(app/**)",),
            summary="app/themes.py",
            preview=ToolPreview(
                "diff", diff_of(OLD_THEME, NEW_THEME, "app/themes.py"), "app/themes.py"
            ),
        )
    )


def todos() -> AppEvent:
    items = (
        Todo("Read the loader", "completed", "Reading the loader"),
        Todo("Guard unknown themes", "in_progress", "Guarding unknown themes"),
        Todo("Run the tests", "pending", "Running the tests"),
    )
    return AppEvent(TodoListChanged(items, ()))
