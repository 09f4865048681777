"""Line shapes and the permission-rule translation of the SDK protocol."""

from __future__ import annotations

from app.protocol.prompter import rule_from_wire, rule_to_wire, suggestions_to_wire
from app.protocol.wire import assistant_lines, control_error, stream_event_line, user_line


def test_one_assistant_line_per_block_as_claude_code_writes_them() -> None:
    message = {
        "id": "msg_1",
        "role": "assistant",
        "model": "m",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "t", "name": "Read", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    lines = assistant_lines(message, "S")
    assert [line["message"]["content"] for line in lines] == [
        [message["content"][0]],
        [message["content"][1]],
    ]
    for line in lines:
        assert line["type"] == "assistant" and line["session_id"] == "S"
        assert line["parent_tool_use_id"] is None and line["uuid"]
        assert line["message"]["id"] == "msg_1" and line["message"]["stop_reason"] is None
    assert lines[0]["uuid"] != lines[1]["uuid"]


def test_user_and_stream_event_lines_carry_the_sdks_fields() -> None:
    for line in (
        user_line({"role": "user", "content": []}, "S"),
        stream_event_line({"type": "ping"}, "S"),
    ):
        assert {"uuid", "session_id", "parent_tool_use_id"} <= set(line)


def test_error_response_shape() -> None:
    assert control_error("r", "nope", "unsupported_request") == {
        "type": "control_response",
        "response": {
            "subtype": "error",
            "request_id": "r",
            "error": "nope",
            "error_code": "unsupported_request",
        },
    }


def test_rules_round_trip_in_claude_codes_permission_update_shape() -> None:
    assert rule_to_wire("Bash(npm test:*)") == {"toolName": "Bash", "ruleContent": "npm test:*"}
    assert rule_to_wire("mcp__calc__add") == {"toolName": "mcp__calc__add"}
    assert rule_from_wire({"toolName": "Bash", "ruleContent": "ls"}) == "Bash(ls)"
    assert rule_from_wire({"ruleContent": "ls"}) is None
    update = suggestions_to_wire(["Read(./x)"])[0]
    assert update["type"] == "addRules" and update["behavior"] == "allow"


def test_can_use_tool_updates_alias_refuse_bypass_and_fail_closed():
    import io

    import pytest

    from app.engine.permission_updates import UpdateError
    from app.protocol.control import ControlChannel
    from app.protocol.prompter import StdioPrompter
    from app.protocol.wire import LineWriter

    notes: list[str] = []
    prompter = StdioPrompter(ControlChannel(LineWriter(io.StringIO())), notes.append, lambda: None)
    (auto,) = prompter.updates([{"type": "setMode", "mode": "auto", "destination": "session"}])
    assert auto.mode == "default"  # "auto" runs as default, never looser
    assert prompter.updates([{"type": "setMode", "mode": "bypassPermissions"}]) == ()
    assert "bypassPermissions" in notes[-1]
    with pytest.raises(UpdateError, match="removeEverything"):
        prompter.updates([{"type": "removeEverything"}])
