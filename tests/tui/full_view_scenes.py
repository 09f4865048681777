"""Scenes for the full view (Ctrl+O) and resumed history: a line folded by wrapping, thinking and a
failed attempt, and a denied batch resumed from a transcript's messages."""

from __future__ import annotations

from typing import Any

from app.engine.events import (
    AssistantMessage,
    AttemptAbandoned,
    RequestStarted,
    Retrying,
    TextDelta,
    ThinkingDelta,
    TurnEnded,
    TurnStarted,
)
from app.execution.texts import INTERRUPTED_FOR_TOOL_USE, REJECT_MESSAGE
from tests.tui.conftest import outcome
from tests.tui.tool_scenes import Calls

# The attack's long.txt: a first line of 302 characters the view folds, then 150 rows.
FOLDED = "START" + "W" * 290 + "TAILEND"
THOUGHT = "The user wants the notes.\nI should read notes.txt first,\nthen answer briefly."
PARTIAL = "\n".join(f"partial line {i}" for i in range(1, 7))


def folded_output() -> list[Any]:
    calls = Calls()
    calls.add(TurnStarted("show long.txt"))
    calls.queue("c1", "Bash", {"command": "cat long.txt", "description": "Show long file"})
    calls.start("c1", "Bash")
    text = "\n".join([FOLDED, *(f"row {i}" for i in range(150))])
    calls.finish("c1", outcome("c1", "Bash", text), 0.1)
    calls.add(TurnEnded(None, "", False, "success", 1))
    return calls.out


def thinking_and_failed_attempt() -> list[Any]:
    """A response that broke after six lines, then the retry: thinking, then the answer."""
    events: list[Any] = [TurnStarted("what is in my notes?"), RequestStarted(1, "m")]
    events += [
        TextDelta(PARTIAL, 0),
        AttemptAbandoned(1, "The connection broke mid-answer", True),
        Retrying(1, 0.5, "The connection broke mid-answer"),
        RequestStarted(1, "m"),
    ]
    events += [ThinkingDelta(line + "\n", 0) for line in THOUGHT.split("\n")]
    events += [
        TextDelta("You need milk.", 1),
        AssistantMessage(
            {"role": "assistant", "content": [{"type": "text", "text": "You need milk."}]}
        ),
        TurnEnded(None, "You need milk.", False, "success", 1),
    ]
    return events


def _result(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": REJECT_MESSAGE,
            "is_error": True}  # fmt: skip


def denied_batch_messages() -> tuple[list[dict[str, Any]], dict[str, bool]]:
    """A transcript's conversation (and its latheUserDenials) where the user denied the rm of a
    batch [echo, rm, touch]: the echo ran, the touch did not; the thinking before was redacted."""
    bash = "Bash"
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "clean up the victim folder"},
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Cleaning up."},
                {
                    "type": "tool_use",
                    "id": "e1",
                    "name": bash,
                    "input": {"command": "echo start", "description": "Say start"},
                },
                {
                    "type": "tool_use",
                    "id": "r1",
                    "name": bash,
                    "input": {"command": "rm -rf victim", "description": "Remove victim"},
                },
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": bash,
                    "input": {"command": "touch sentinel_B"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "e1", "content": "start"},
                _result("r1"),
                _result("t1"),
                {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE},
            ],
        },
    ]
    return messages, {"r1": True}


def stopped_at_question() -> list[Any]:
    """Ctrl+C while a call's dialog is open: it never ran (no time), nor did the call behind it;
    the turn is over, so no tool panel."""
    from app.engine.events import Interrupted
    from app.engine.tool_views import question_for
    from app.execution.outcome import error_outcome
    from tests.tui.tool_scenes import _prompt

    calls = Calls()
    calls.add(TurnStarted("make the file, then wait"))
    calls.queue("t1", "Bash", {"command": "touch s11_a", "description": "Make the file"})
    calls.queue("s2", "Bash", {"command": "sleep 2"})
    calls.start("t1", "Bash")
    calls.ask(question_for(_prompt("t1", "Bash", {"command": "touch s11_a"})))
    answered = calls.tracker.answered("t1", allowed=False)
    assert answered is not None
    calls.add(answered)
    for tid in ("t1", "s2"):
        stop = error_outcome(tid, "Bash", REJECT_MESSAGE, synthetic="user_interrupt")
        calls.finish(tid, stop, 0.1)
    calls.add(Interrupted(during_tools=True), TurnEnded(None, "", False, "interrupted", 1))
    return calls.out


def resumed_edits() -> tuple[list[dict[str, Any]], dict[str, bool]]:
    """A transcript with an edit that was made and one the user denied, of a file that is gone
    since: both diffs rebuilt from the recorded strings, with no line numbers."""
    path = "/work/demo/app/themes.py"
    made = {"file_path": path, "old_string": "import os\n", "new_string": "import os\nimport sys\n"}
    old = "    return THEMES[name]\n"
    new = "    if name not in THEMES:\n        raise ThemeError(name)\n    return THEMES[name]\n"
    denied = {"file_path": path, "old_string": old, "new_string": new}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "guard the theme lookup"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "m1", "name": "Edit", "input": made}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "m1",
                         "content": f"The file {path} has been updated."}],
        },
        {"role": "assistant", "content": [{"type": "tool_use", "id": "d1", "name": "Edit", "input": denied}]},
        {"role": "user", "content": [_result("d1"), {"type": "text", "text": INTERRUPTED_FOR_TOOL_USE}]},
    ]  # fmt: skip
    return messages, {"d1": True}
