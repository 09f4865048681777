"""The screen never shows texts written for the model: a real session's TodoWrite and Edit calls
(the HTTP fake, the real tools) reach front ends with plain results, and Edit's permission
preview and result diff come without the `--- a/...` / `+++ b/...` header lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.cli import CliOptions
from app.engine.plain_words import screen_diff, screen_text
from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.support.engine import make_session
from tools.files.diff import unified_diff
from tools.todo_write import RESULT_TEXT


async def test_todo_reminder_and_diff_headers_do_not_reach_the_screen(
    fake_api: Any, project: Path, monkeypatch: Any
) -> None:
    (project / ".git").mkdir()
    target = project / "notes.txt"
    target.write_text("one\ntwo\n")
    todos = {"todos": [{"content": "Fix it", "status": "in_progress", "activeForm": "Fixing it"}]}
    edit = {"file_path": str(target), "old_string": "two", "new_string": "TWO"}
    fake_api.load(
        [
            turn_of([tool_use_block("TodoWrite", todos, "t1")]),
            turn_of([tool_use_block("Read", {"file_path": str(target)}, "r1")]),
            turn_of([tool_use_block("Edit", edit, "e1")]),
            text_turn("done"),
        ]
    )
    session, events = make_session(
        fake_api, project, opts=CliOptions(permission_mode="acceptEdits"), monkeypatch=monkeypatch
    )
    await session.run_turn("go")
    finished = {v.tool_use_id: v for v in events.calls("finished")}
    todo = finished["t1"].result
    assert todo is not None and todo.body == "Todo list updated"
    assert RESULT_TEXT not in todo.summary + todo.body
    # ... while the model got its own text.
    sent = [
        b
        for m in fake_api.bodies()[1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert sent[0]["content"] == RESULT_TEXT
    diff = finished["e1"].result
    assert diff is not None and diff.kind == "diff"
    assert "+++ b/" not in diff.body and "--- a/" not in diff.body
    assert "-two\n+TWO\n" in diff.body and diff.body.startswith("@@ ")


def test_reminders_are_cut_and_the_rest_is_kept() -> None:
    text = "line 1\n<system-reminder>\nfor the model\n</system-reminder>\nline 2"
    assert screen_text(text) == "line 1\nline 2"
    assert screen_text("plain") == "plain"


def test_a_removed_line_that_looks_like_a_header_is_kept() -> None:
    diff, _, _ = unified_diff("a\n-- x\nb\n", "a\n++ y\nb\n", "/tmp/f.sql")
    assert diff.startswith("--- a/tmp/f.sql\n+++ b/tmp/f.sql\n")
    shown = screen_diff(diff)
    assert shown == "@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n b\n"
