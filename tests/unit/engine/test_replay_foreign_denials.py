"""A deny replayed from a transcript without lathe's USER_DENIALS field (Claude Code's, an older
lathe's) still reads as denied, the deny with feedback included (review round 3, mutant N9)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.api import ToolCallUpdated
from app.engine.replay import replay_events
from app.execution.texts import REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX


def _messages(content: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "make x"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "touch x"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "b", "content": content, "is_error": True}
            ],
        },
    ]


@pytest.mark.parametrize(
    "content", [REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX + "make y instead"]
)
def test_a_foreign_deny_replays_as_denied(content: str) -> None:
    from tools.bash import BashTool

    events = replay_events(_messages(content), [BashTool()])
    [finished] = [e for e in events if isinstance(e, ToolCallUpdated) and e.change == "finished"]
    assert finished.view.status == "denied"
