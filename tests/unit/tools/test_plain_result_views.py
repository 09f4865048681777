"""The on-screen lines Skill, TaskStop, ToolSearch and WebFetch declare, in Claude Code 2.1.332's
words (read from its binary and seen in tmux), and the model's texts they leave alone."""

from __future__ import annotations

from tools.skill import SkillTool
from tools.task_stop import TaskStopTool
from tools.tool_search import ToolSearchTool
from tools.web_fetch import Fetched, WebFetchTool, size_text


def test_size_text_is_claude_codes() -> None:
    assert [size_text(n) for n in (0, 1023, 1024, 1071, 1126, 5 * 1024 * 1024, 1536 * 1024)] == [
        "0 bytes",
        "1023 bytes",
        "1KB",
        "1KB",
        "1.1KB",
        "5MB",
        "1.5MB",
    ]


def test_skill_lines() -> None:
    tool = SkillTool()
    plain = tool.result_view({"success": True, "commandName": "greet"}, False)
    assert plain is not None and (plain.summary, plain.body, plain.own_body) == (
        "Loaded skill",
        "",
        True,
    )
    allowed = {"success": True, "commandName": "g", "allowedTools": ["Bash(ls)", "Read"]}
    view = tool.result_view(allowed, False)
    assert view is not None and view.summary == "Loaded skill · 2 tools allowed"
    forked = {"success": True, "commandName": "g", "result": "Made it.\n", "agentId": "a1"}
    view = tool.result_view(forked, False)
    assert view is not None and (view.summary, view.body) == ("Done", "Made it.")
    assert tool.to_result_content({"success": True, "commandName": "greet"}) == (
        "Launching skill: greet"
    )
    assert tool.result_from_record({"success": True, "commandName": "greet"}, "") == {
        "success": True,
        "commandName": "greet",
    }


def test_task_stop_lines() -> None:
    tool = TaskStopTool()
    data = {"message": "Successfully stopped shell: b (x)", "shell_id": "b", "command": "sleep 9"}
    view = tool.result_view({**data, "status": "stopped"}, False)
    assert view is not None and (view.summary, view.body) == ("sleep 9 · stopped", "")
    view = tool.result_view({**data, "status": "completed"}, False)
    assert view is not None and view.summary == "sleep 9 · not running (completed)"
    # A transcript of an earlier version kept only the message and the id.
    old = tool.result_from_record(
        {"message": "Successfully stopped shell: b (x)", "shell_id": "b"}, ""
    )
    view = tool.result_view(old, False)
    assert view is not None and view.summary == "b · stopped"


def test_tool_search_lines() -> None:
    tool = ToolSearchTool()
    data = {"query": "q", "matches": ["A", "B"], "missing": ["C"], "definitions": []}
    view = tool.result_view(data, False)
    assert view is not None and (view.summary, view.body) == ("Loaded A, B · not found: C", "")
    view = tool.result_view({**data, "matches": [], "missing": []}, False)
    assert view is not None and view.summary == "No matching tools"


def test_web_fetch_line_and_record() -> None:
    tool = WebFetchTool()
    page = Fetched("https://x.org/", 200, "OK", 1126, "URL: https://x.org/\n\nIt is.", "It is.")
    view = tool.result_view(page, False)
    assert view is not None and (view.summary, view.body) == ("Received 1.1KB (200 OK)", "It is.")
    assert tool.to_result_content(page) == "URL: https://x.org/\n\nIt is."
    record = page.hook_response()
    assert record == {
        "bytes": 1126,
        "code": 200,
        "codeText": "OK",
        "result": "It is.",
        "durationMs": 0,
        "url": "https://x.org/",
    }
    rebuilt = tool.result_from_record(record, "the model's text")
    assert rebuilt is not None and tool.result_view(rebuilt, False) == view
