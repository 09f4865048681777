"""The SDK protocol's printer nests a subagent's messages under its Agent call."""

from __future__ import annotations

import io
import json

from app.engine.api import AssistantMessage, SubagentMessage
from app.protocol.printer import ProtocolPrinter
from app.protocol.wire import LineWriter


def test_subagent_lines_follow_their_agent_call_with_parent_tool_use_id():
    out = io.StringIO()
    printer = ProtocolPrinter(LineWriter(out), io.StringIO(), partial=False)
    printer.session_id = "s1"
    # The subagent starts (its prompt) before the message holding the Agent call is whole.
    printer(SubagentMessage("toolu_a", "a1", "Explore", {"role": "user", "content": "look"}))
    assert out.getvalue() == ""
    call = {"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": {}}
    printer(AssistantMessage({"role": "assistant", "content": [call]}))
    reply = {"role": "assistant", "content": [{"type": "text", "text": "found it"}]}
    printer(SubagentMessage("toolu_a", "a1", "Explore", reply))
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [(x["type"], x["parent_tool_use_id"]) for x in lines] == [
        ("assistant", None),
        ("user", "toolu_a"),
        ("assistant", "toolu_a"),
    ]
    assert lines[2]["message"]["content"] == [{"type": "text", "text": "found it"}]
