"""Scenes of tool calls and their questions, as the engine builds them: the real tools declare
their labels, the real tracker turns executor events into views (awaiting approval included), and
outcomes are what the executor makes of a deny that ends the turn."""

from __future__ import annotations

from typing import Any

from app.engine import answers
from app.engine.choices import Offer
from app.engine.events import EngineEvent, Interrupted, TurnEnded, TurnStarted
from app.engine.tool_views import ToolCallTracker, question_for
from app.engine.views import PermissionQuestion
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolRunning, ToolStarted
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome, error_outcome
from app.execution.texts import REJECT_MESSAGE
from tests.tui.conftest import outcome
from tests.tui.scenes import diff_of, edit_change
from tools.base import Tool, ToolPreview, ToolProgress
from tools.bash import BashTool
from tools.decisions import DecisionReason
from tools.edit import EditTool
from tools.glob import GlobTool
from tools.grep import GrepTool
from tools.read import ReadTool
from tools.write import WriteTool

TOOLS: dict[str, Tool[Any]] = {
    t.name: t for t in (BashTool(), EditTool(), GrepTool(), GlobTool(), ReadTool(), WriteTool())
}


class Calls:
    """Executor events in, the views a session would send out."""

    def __init__(self) -> None:
        self.tracker = ToolCallTracker(find=TOOLS.get)
        self.out: list[Any] = []

    def queue(self, tool_use_id: str, name: str, tool_input: dict[str, Any]) -> None:
        tool = TOOLS[name]
        parsed = tool.parse_input(tool_input)
        event = ToolQueued(
            tool_use_id,
            name,
            tool_input,
            tool.summary(parsed),
            tool.is_concurrency_safe(parsed),
            label=tool.label(parsed),
            output_focus=tool.output_focus,
        )
        self.out.append(self.tracker.queued(event))

    def start(self, tool_use_id: str, name: str, at: float = 990.0) -> None:
        self.out.append(self.tracker.started(ToolStarted(tool_use_id, name, at)))
        self.out.append(self.tracker.running(ToolRunning(tool_use_id, name, at)))

    def output(self, tool_use_id: str, text: str) -> None:
        progress = ToolProgress(output=text)
        self.out.append(self.tracker.progressed(ToolProgressed(tool_use_id, progress, 991.0)))

    def ask(self, question: PermissionQuestion) -> None:
        update = self.tracker.asked(question)
        assert update is not None
        self.out.append(update)

    def finish(self, tool_use_id: str, done: CallOutcome, elapsed: float = 0.4) -> None:
        self.out.append(self.tracker.finished(ToolFinished(tool_use_id, done, elapsed)))

    def add(self, *events: EngineEvent) -> None:
        self.out.extend(events)


def _prompt(tool_use_id: str, name: str, tool_input: dict[str, Any], **kw: Any) -> PermissionPrompt:
    tool = TOOLS[name]
    parsed = tool.parse_input(tool_input)
    return PermissionPrompt(
        tool=tool,
        tool_name=name,
        tool_use_id=tool_use_id,
        input=tool_input,
        message=f"{name} needs permission",
        reason=kw.pop("reason", DecisionReason("check", f"{name} needs approval")),
        suggestions=kw.pop("suggestions", ()),
        summary=tool.summary(parsed),
        title=tool.user_facing_name(parsed),
        **kw,
    )


def what_runs() -> list[Any]:
    """A Bash call with a description (done), an edit with its diff stat, searches with their
    patterns, a command running, and one awaiting approval (not running, not counted)."""
    calls = Calls()
    calls.add(TurnStarted("Fix the theme lookup and run the tests"))
    calls.queue("b1", "Bash", {"command": "git status --short", "description": "Show changes"})
    calls.queue("g1", "Grep", {"pattern": "THEMES\\[", "path": "app/"})
    calls.queue("l1", "Glob", {"pattern": "**/*.tcss", "path": "app/tui"})
    calls.queue(
        "e1",
        "Edit",
        {"file_path": "/work/demo/app/themes.py", "old_string": "a", "new_string": "b"},
    )
    calls.queue(
        "b2",
        "Bash",
        {"command": "pytest -q tests/unit -k theme", "description": "Run the theme tests"},
    )
    calls.queue("b3", "Bash", {"command": "rm -rf build/", "description": "Clean the build"})
    for tid, name in (("b1", "Bash"), ("g1", "Grep"), ("l1", "Glob")):
        calls.start(tid, name)
    calls.finish("b1", outcome("b1", "Bash", " M app/themes.py\n?? notes.txt"), 0.1)
    calls.finish("g1", outcome("g1", "Grep", "app/themes.py\napp/tui/app.py"), 0.05)
    calls.finish("l1", outcome("l1", "Glob", "app/tui/screens/main.tcss"), 0.02)
    change = edit_change()
    calls.start("e1", "Edit")
    calls.finish("e1", outcome("e1", "Edit", change.message, data=change), 0.01)
    calls.start("b2", "Bash")
    calls.output("b2", "collected 12 items\n\ntests/unit/test_themes.py ....")
    calls.start("b3", "Bash", 995.0)
    question = question_for(
        _prompt(
            "b3",
            "Bash",
            {"command": "rm -rf build/"},
            preview=ToolPreview("command", "rm -rf build/", language="bash"),
        )
    )
    calls.ask(question)
    return calls.out


def denied_batch() -> list[Any]:
    """A deny that ended the turn: the denied call, and two the deny kept from running."""
    calls = Calls()
    calls.add(TurnStarted("make the three files"))
    calls.queue("b1", "Bash", {"command": "touch x", "description": "Make x"})
    calls.queue("b2", "Bash", {"command": "touch y"})
    calls.queue("r1", "Read", {"file_path": "/work/demo/z.txt"})
    calls.start("b1", "Bash")
    denied = error_outcome("b1", "Bash", REJECT_MESSAGE, input={"command": "touch x"})
    denied.decision = answers.deny(end_turn=True)
    denied.permission_denial = {"tool_name": "Bash", "tool_use_id": "b1", "tool_input": {}}
    calls.finish("b1", denied, 0.0)
    for tid, name in (("b2", "Bash"), ("r1", "Read")):
        calls.finish(tid, error_outcome(tid, name, REJECT_MESSAGE, synthetic="user_denied"), 0.0)
    calls.add(
        Interrupted(during_tools=True, denied="Bash(touch x)"),
        TurnEnded(None, "", False, "interrupted", 1),
    )
    return calls.out


def denied_edit() -> list[Any]:
    """An edit the user denied at its question (the deny ended the turn): its diff stays."""
    question = edit_question()
    calls = Calls()
    calls.add(TurnStarted("guard the theme lookup"))
    calls.queue("e1", "Edit", dict(question.input))
    calls.start("e1", "Edit")
    calls.ask(question)
    answered = calls.tracker.answered("e1", allowed=False)
    assert answered is not None
    calls.out.append(answered)
    denied = error_outcome("e1", "Edit", REJECT_MESSAGE, input=dict(question.input))
    denied.decision = answers.deny(end_turn=True)
    denied.permission_denial = {"tool_name": "Edit", "tool_use_id": "e1", "tool_input": {}}
    calls.finish("e1", denied, 0.0)
    calls.add(
        Interrupted(during_tools=True, denied="Edit(/work/demo/app/themes.py)"),
        TurnEnded(None, "", False, "interrupted", 1),
    )
    return calls.out


def long_output(lines: int = 2000, wide: int = 4000) -> list[Any]:
    """A 2,000-line output whose 3rd line is 4,000 characters long."""
    calls = Calls()
    calls.add(TurnStarted("print a lot"))
    calls.queue("b1", "Bash", {"command": "python gen.py", "description": "Generate the report"})
    calls.start("b1", "Bash")
    body = [f"row {i:04d}" for i in range(1, lines + 1)]
    body[2] = "W" * (wide - 10) + " END-OF-IT"
    calls.finish("b1", outcome("b1", "Bash", "\n".join(body)), 2.5)
    return calls.out


def edit_question(path: str = "/work/demo/app/themes.py") -> PermissionQuestion:
    old = "    return THEMES[name]\n"
    new = "    if name not in THEMES:\n        raise ThemeError(name)\n    return THEMES[name]\n"
    prompt = _prompt(
        "e1",
        "Edit",
        {"file_path": path, "old_string": old, "new_string": new},
        preview=ToolPreview("diff", diff_of(old, new, "app/themes.py"), path),
        reason=DecisionReason("check", "writing app/themes.py is not allowed by any rule"),
    )
    rule = "Edit(./app/themes.py)"
    return question_for(prompt, Offer((rule,), True, (rule,)))


def long_write_question(lines: int = 200) -> PermissionQuestion:
    content = "".join(f"line {i} of the new file\n" for i in range(1, lines + 1))
    path = "/work/demo/docs/long.md"
    prompt = _prompt(
        "w1",
        "Write",
        {"file_path": path, "content": content},
        preview=ToolPreview("diff", diff_of("", content, "docs/long.md"), path),
    )
    rule = "Edit(./docs/long.md)"
    return question_for(prompt, Offer((rule,), True, (rule,)))


def no_rule_question() -> PermissionQuestion:
    """A command no rule can approve (a redirect to a file): no "always" is offered, and an
    append after a substitution of a harmless command is no destructive warning."""
    command = "echo $(date) >> stamp.txt"
    prompt = _prompt(
        "b1",
        "Bash",
        {"command": command},
        preview=ToolPreview("command", command, language="bash"),
        suggestions=("Bash(echo $(date) >> stamp.txt)",),
    )
    return question_for(prompt, Offer())
