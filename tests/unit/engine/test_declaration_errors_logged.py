"""A tool declaration that raises on the rendering path (label, summary, output_tail,
is_destructive_at, a result's hook_response) costs the view only that field, and goes to the
debug log (LATHE_LOG), as result_view's does; input that does not parse is the model's mistake,
not a broken declaration, and is not logged."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from app.engine.replay import label_with, summarize_with
from app.engine.result_views import call_label
from app.engine.tool_views import ToolCallTracker, question_for
from app.execution.events import ToolFinished, ToolQueued
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome
from app.transcript import tool_use_result
from tools.base import CallLabel, ToolContext
from tools.bash import BashInput, BashTool
from tools.decisions import DecisionReason


class Broken(BashTool):
    def label(self, input: BashInput) -> CallLabel:
        raise RuntimeError("label is broken")

    def summary(self, input: BashInput) -> str:
        raise RuntimeError("summary is broken")

    def output_tail(self, data: Any) -> str | None:
        raise RuntimeError("output_tail is broken")

    def is_destructive_at(self, input: BashInput, cwd: str) -> bool:
        raise RuntimeError("is_destructive_at is broken")


class BadShape:
    def hook_response(self) -> Any:
        raise RuntimeError("hook_response is broken")


def test_broken_declarations_are_logged_and_bad_input_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "debug.log"
    monkeypatch.setenv("LATHE_LOG", str(log))
    tool, good = Broken(), {"command": "ls"}
    assert call_label(tool, "Bash", good) == "Bash"
    assert label_with(tool, good) is None
    assert summarize_with([tool], "Bash", good) == ""
    calls = ToolCallTracker(find={"Bash": tool}.get)
    calls.queued(ToolQueued("b1", "Bash", good, "ls", False))
    block = {"type": "tool_result", "tool_use_id": "b1", "content": "out"}
    done = CallOutcome("b1", "Bash", block, False, input=good, ran=True)
    assert calls.finished(ToolFinished("b1", done, 0.1)).view.status == "done"
    prompt = PermissionPrompt(
        tool,
        "Bash",
        "b1",
        good,
        "?",
        DecisionReason("mode", "ask"),
        (),
        context=ToolContext(str(tmp_path), str(tmp_path), (str(tmp_path),)),
    )
    assert question_for(dataclasses.replace(prompt)).destructive is False
    assert tool_use_result(CallOutcome("b2", "X", {}, False, data=BadShape())) is not None
    text = log.read_text(encoding="utf-8")
    # call_label and label_with each log the label; every other declaration once.
    counts = {"label": 2, "summary": 1, "output_tail": 1, "is_destructive": 1, "hook_response": 1}
    for name, count in counts.items():
        assert text.count(f".{name} raised") == count, name
    before = text.count(" raised")
    # The model's input that does not parse: nothing to log.
    assert call_label(tool, "Bash", {"command": 3}) == "Bash"
    assert summarize_with([tool], "Bash", {}) == ""
    assert log.read_text(encoding="utf-8").count(" raised") == before


def test_broken_kind_and_locations_are_logged_and_shown_as_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call's kind and files are the tool's declarations: one that raises costs the view only
    those (kind "other", no files), and goes to the log; the rest of the view is built."""

    class NoKind(BashTool):
        def call_kind(self) -> Any:
            raise RuntimeError("call_kind is broken")

        def locations(self, input: BashInput) -> Any:
            raise RuntimeError("locations is broken")

    log = tmp_path / "lathe.log"
    monkeypatch.setenv("LATHE_LOG", str(log))
    tool = NoKind()
    tracker = ToolCallTracker(find=lambda name: tool)
    view = tracker.queued(ToolQueued("t1", "Bash", {"command": "ls"}, "ls", False)).view
    assert (view.kind, view.locations, view.title) == ("other", (), "ls")
    text = log.read_text()
    assert "call_kind is broken" in text and "locations is broken" in text
    # Input that does not parse is the model's mistake: not logged.
    log.unlink()
    plain = ToolCallTracker(find=lambda name: BashTool())
    assert plain.queued(ToolQueued("t2", "Bash", {"nope": 1}, "", False)).view.kind == "execute"
    assert not log.exists()
