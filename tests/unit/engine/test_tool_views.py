"""The front-end API's views: executor events become frozen ToolCallViews, a PermissionPrompt a
PermissionQuestion whose answer is the prompt's, and previews read the real file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.engine.tool_views import ToolCallTracker, question_for
from app.execution.events import (
    ToolFinished,
    ToolProgressed,
    ToolQueued,
    ToolRunning,
    ToolStarted,
)
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome, error_outcome
from app.execution.resolve_once import ResolveOnce
from tools.agent import AgentTool
from tools.base import ReadOnlyTool, ResultView, ToolContext, ToolPreview, ToolProgress
from tools.bash import BashResult, BashTool
from tools.decisions import DecisionReason
from tools.edit import EditTool
from tools.files.diff import FileChange
from tools.subagent import SubagentOutcome


def _done(tool_use_id: str, text: str, **kw: object) -> CallOutcome:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    return CallOutcome(tool_use_id, "Bash", block, False, **kw)  # type: ignore[arg-type]


def test_a_call_from_queued_to_done() -> None:
    calls = ToolCallTracker()
    queued = calls.queued(ToolQueued("b1", "Bash", {"command": "ls"}, "ls", False))
    assert (queued.change, queued.view.status, queued.view.title) == ("queued", "queued", "ls")
    started = calls.started(ToolStarted("b1", "Bash", 12.0))
    # Taken by the executor, being checked: not running, no clock yet.
    assert started.view.status == "checking" and started.view.started_at is None
    running = calls.running(ToolRunning("b1", "Bash", 12.5))
    assert running.change == "running"
    assert running.view.status == "running" and running.view.started_at == 12.5
    first = calls.progressed(ToolProgressed("b1", ToolProgress(output="a\n"), 13.0))
    second = calls.progressed(ToolProgressed("b1", ToolProgress(text="50%", fraction=0.5), 13.1))
    assert first.output == "a\n" and first.view.output_tail == "a\n"
    assert second.view.output_tail == "a\n" and second.view.progress_text == "50%"
    assert second.view.fraction == 0.5 and second.output == ""
    finished = calls.finished(ToolFinished("b1", _done("b1", "a\nb"), 0.7))
    view = finished.view
    assert view.status == "done" and view.finished and view.elapsed == 0.7
    assert view.result is not None and (view.result.kind, view.result.body) == ("text", "a\nb")
    assert calls.view("b1") is None  # a finished call is not kept
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.status = "failed"  # type: ignore[misc]


def test_failed_denied_interrupted_and_diff_results() -> None:
    calls = ToolCallTracker()
    failed = calls.finished(ToolFinished("x", error_outcome("x", "Bash", "boom"), 0.1)).view
    assert failed.status == "failed" and failed.result is not None
    assert failed.result.kind == "error"
    stopped = error_outcome("y", "Bash", "stopped", synthetic="user_interrupt")
    assert calls.finished(ToolFinished("y", stopped, 0.1)).view.status == "interrupted"
    denied = error_outcome("z", "Bash", "no")
    denied.permission_denial = {"tool_name": "Bash"}
    assert calls.finished(ToolFinished("z", denied, 0.1)).view.status == "denied"

    change = FileChange("update", "/f", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n", "ok", 1, 1)
    edits = ToolCallTracker(find={"Edit": EditTool()}.get)
    block = {"type": "tool_result", "tool_use_id": "e", "content": "The file was updated."}
    outcome = CallOutcome("e", "Edit", block, False, data=change, ran=True)
    edit = edits.finished(ToolFinished("e", outcome, 0))
    assert edit.view.result is not None and edit.view.result.kind == "diff"
    # Shown without the header lines (the block names the file): app/engine/plain_words.py.
    assert edit.view.result.body == "@@ -1 +1 @@\n-x\n+y\n"
    assert edit.view.result.summary == "Added 1, removed 1 lines"  # Edit's own result_summary


def _prompt(name: str, tool_input: dict[str, object], **kw: object) -> PermissionPrompt:
    return PermissionPrompt(
        tool=kw.pop("tool", None),  # type: ignore[arg-type]
        tool_name=name,
        tool_use_id="t1",
        input=tool_input,
        message=f"{name} needs permission",
        reason=DecisionReason("mode", "needs approval"),
        suggestions=(f"{name}(x)",),
        summary="x",
        **kw,  # type: ignore[arg-type]
    )


def test_the_question_answers_the_prompt_once_and_tells_its_waiters() -> None:
    prompt = _prompt("Bash", {"command": "make"}, preview=ToolPreview("command", "make"))
    question = question_for(prompt)
    assert [c.id for c in question.choices] == ["allow_once", "allow_always", "deny"]
    assert question.preview is not None and question.preview.kind == "command"
    seen: list[str] = []
    question.on_answered(lambda decision: seen.append(decision.behavior))
    assert question.choose("deny", "use cmake")
    assert not question.choose("allow_once")  # the first answer wins
    assert seen == ["deny"] and prompt.resolver.value is not None
    assert prompt.resolver.value.feedback == "use cmake"
    late: list[str] = []
    question.on_answered(lambda decision: late.append(decision.behavior))
    assert late == ["deny"]  # answered already: told at once


def test_resolve_once_callbacks_fire_once_with_the_value() -> None:
    once: ResolveOnce[int] = ResolveOnce()
    got: list[int] = []
    once.add_done_callback(got.append)
    assert once.claim()
    assert got == []  # claimed is not delivered yet
    once.set_claimed(7)
    assert got == [7] and not once.resolve(8) and got == [7]


def test_the_question_carries_the_tools_own_preview_of_the_real_file(tmp_path: Path) -> None:
    from tools.edit import EditTool

    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    context = ToolContext(cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=())
    tool = EditTool()
    raw = {"file_path": str(tmp_path / "f.txt"), "old_string": "b", "new_string": "B"}
    preview = tool.preview(tool.parse_input(raw), context)
    question = question_for(_prompt("Edit", raw, tool=tool, preview=preview))
    assert preview is not None and preview.kind == "diff" and preview.text.startswith("--- ")
    shown = question.preview
    assert shown is not None and shown.kind == "diff" and shown.path == preview.path
    assert "-b" in shown.text and "+B" in shown.text and " a" in shown.text
    assert not shown.text.startswith(("--- ", "+++ ")) and "+++ b/" not in shown.text
    assert not question.destructive


def test_a_subagents_calls_name_their_parent() -> None:
    calls = ToolCallTracker(parent_tool_use_id="agent_1")
    view = calls.queued(ToolQueued("r1", "Read", {}, "a.py", True)).view
    assert view.parent_tool_use_id == "agent_1"
    finished = calls.finished(ToolFinished("r1", _done("r1", "x"), 0.1)).view
    assert finished.parent_tool_use_id == "agent_1"
    assert (
        ToolCallTracker().queued(ToolQueued("r2", "Read", {}, "", True)).view.parent_tool_use_id
        is None
    )


def test_waiting_for_approval_is_not_running_and_not_timed() -> None:
    from app.engine.api import answers

    now = [100.0]
    calls = ToolCallTracker(clock=lambda: now[0])
    calls.queued(ToolQueued("b1", "Bash", {"command": "make"}, "make", False))
    calls.started(ToolStarted("b1", "Bash", 100.0))
    prompt = _prompt("Bash", {"command": "make"})
    prompt.tool_use_id = "b1"
    asked = calls.asked(question_for(prompt))
    assert asked is not None and asked.view.status == "awaiting_approval"
    now[0] = 130.0  # the user took 30 s to answer
    answered = calls.answered("b1")
    # Back to being checked: the clock starts only when the executor says it runs.
    assert answered is not None and answered.view.status == "checking"
    assert answered.view.started_at is None
    assert calls.running(ToolRunning("b1", "Bash", 130.0)).view.started_at == 130.0
    done = calls.finished(ToolFinished("b1", _done("b1", "ok"), 1.5)).view
    assert done.elapsed == 1.5  # the executor times the call from its "running" moment
    # A question a running tool asks for a nested action: its wait is taken off too.
    calls.queued(ToolQueued("n1", "Bash", {"command": "make"}, "make", False))
    calls.started(ToolStarted("n1", "Bash", 200.0))
    calls.running(ToolRunning("n1", "Bash", 200.0))
    now[0] = 201.0
    prompt.tool_use_id = "n1"
    calls.asked(question_for(prompt))
    now[0] = 211.0
    resumed = calls.answered("n1")
    assert resumed is not None and resumed.view.status == "running"
    assert resumed.view.started_at == 210.0
    assert calls.finished(ToolFinished("n1", _done("n1", "ok"), 12.0)).view.elapsed == 2.0
    # A call the user denied did not run: no elapsed time, plain words.
    calls.queued(ToolQueued("b2", "Bash", {"command": "rm x"}, "rm x", False))
    calls.started(ToolStarted("b2", "Bash", 140.0))
    denied = error_outcome("b2", "Bash", "rejected")
    denied.decision = answers.deny(end_turn=True)
    denied.permission_denial = {"tool_name": "Bash"}
    view = calls.finished(ToolFinished("b2", denied, 3.0)).view
    assert view.elapsed is None and view.result is not None
    assert (view.status, view.result.summary) == ("denied", "Denied by you")


def test_not_run_calls_name_the_deny_and_interrupted_output_stays() -> None:
    from app.engine.api import answers
    from tools.base import CallLabel

    calls = ToolCallTracker()
    label = CallLabel("touch x", "bash", "Make x")
    queued = calls.queued(ToolQueued("b1", "Bash", {}, "Make x", False, label=label)).view
    assert queued.label == label
    calls.queued(ToolQueued("b2", "Bash", {}, "", False))
    calls.queued(ToolQueued("b3", "Bash", {}, "", False))
    denied = error_outcome("b1", "Bash", "rejected")
    denied.decision = answers.deny(end_turn=True)
    denied.permission_denial = {"tool_name": "Bash"}
    calls.finished(ToolFinished("b1", denied, 0.0))
    unrun = error_outcome("b2", "Bash", "rejected", synthetic="user_denied")
    view = calls.finished(ToolFinished("b2", unrun, 0.0)).view
    assert view.status == "interrupted" and view.result is not None
    assert view.result.summary == "not run: you denied Bash(touch x)"
    # Ctrl+C: the output seen so far stays, the model's rejection text is not shown.
    calls.started(ToolStarted("b3", "Bash", 1.0))
    calls.running(ToolRunning("b3", "Bash", 1.0))
    calls.progressed(ToolProgressed("b3", ToolProgress(output="step 1\nstep 2\n"), 1.1))
    stopped = error_outcome("b3", "Bash", "rejected", synthetic="user_interrupt")
    view = calls.finished(ToolFinished("b3", stopped, 0.5)).view
    assert view.output_tail == "step 1\nstep 2\n" and view.result is not None
    assert view.result.summary == "Interrupted by you" and "rejected" not in view.result.body


def test_errors_on_screen_lose_their_model_tags() -> None:
    calls = ToolCallTracker()
    bad = error_outcome("g1", "Grep", "<tool_use_error>Error: bad regex</tool_use_error>")
    view = calls.finished(ToolFinished("g1", bad, 0.1)).view
    assert view.result is not None and view.result.body == "Error: bad regex"


def test_a_resumed_rejection_reads_in_plain_words() -> None:
    from app.execution.texts import REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX, sibling_cancelled

    calls = ToolCallTracker()
    texts = {
        "a": (REJECT_MESSAGE, "Rejected by you"),
        "b": (REJECT_WITH_FEEDBACK_PREFIX + "use yarn", "Rejected by you · you said: use yarn"),
        "c": (sibling_cancelled("toolu_x"), "not run: a parallel call failed"),
    }
    for tool_use_id, (sent, shown) in texts.items():
        view = calls.finished(
            ToolFinished(tool_use_id, error_outcome(tool_use_id, "Bash", sent), 0)
        )
        assert view.view.result is not None and view.view.result.summary == shown


def test_a_long_output_keeps_its_tail_not_its_head() -> None:
    """More than MAX_TAIL_CHARS of progress output: the view keeps the newest characters (what
    ACP streams and what an interrupted call keeps), never the first ones."""
    from app.engine.tool_views import MAX_TAIL_CHARS

    calls = ToolCallTracker()
    calls.queued(ToolQueued("b1", "Bash", {"command": "yes"}, "yes", False))
    calls.started(ToolStarted("b1", "Bash", 1.0))
    calls.running(ToolRunning("b1", "Bash", 1.0))
    chunks = [f"line {n:05d}\n" for n in range(1_000)]  # 11,000 characters
    assert sum(map(len, chunks)) > 2 * MAX_TAIL_CHARS
    for chunk in chunks:
        update = calls.progressed(ToolProgressed("b1", ToolProgress(output=chunk), 1.1))
    whole = "".join(chunks)
    assert update.view.output_tail == whole[-MAX_TAIL_CHARS:]
    assert update.view.output_tail.endswith("line 00999\n")
    assert "line 00000" not in update.view.output_tail
    stopped = error_outcome("b1", "Bash", "stopped", synthetic="user_interrupt")
    finished = calls.finished(ToolFinished("b1", stopped, 0.2)).view
    assert finished.output_tail == whole[-MAX_TAIL_CHARS:]


def _ran(tool_use_id: str, name: str, text: str, data: object) -> CallOutcome:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    return CallOutcome(tool_use_id, name, block, False, data=data, ran=True)


def test_a_finished_call_shows_what_its_tool_declares() -> None:
    """The summary line and the kind come from the tool (`result_view`/`result_summary`), the
    text body from what the model got: a tool's declaration is the only place "3 widgets" or
    an image kind could come from."""

    class Widgets(ReadOnlyTool[object]):
        name = "Widgets"

        def result_summary(self, data: object) -> str:
            return f"{data} widgets made"

    class Picture(ReadOnlyTool[object]):
        name = "Picture"

        def result_view(self, data: object, is_error: bool) -> ResultView | None:
            return ResultView("a 2 KB picture", "/tmp/p.png", "image")

    calls = ToolCallTracker(find={"Widgets": Widgets(), "Picture": Picture()}.get)
    made = calls.finished(ToolFinished("w", _ran("w", "Widgets", "w1\nw2\nw3", 3), 0.1)).view
    assert made.result is not None
    assert (made.result.summary, made.result.body, made.result.kind) == (
        "3 widgets made",
        "w1\nw2\nw3",
        "text",
    )
    shown = calls.finished(ToolFinished("p", _ran("p", "Picture", "[image]", "p.png"), 0.1)).view
    assert shown.result == ResultView("a 2 KB picture", "/tmp/p.png", "image")
    # A tool the session does not know: the model's text is the summary, as before.
    other = calls.finished(ToolFinished("o", _ran("o", "Other", "first\nsecond", 3), 0.1)).view
    assert other.result is not None and other.result.summary == "first\nsecond"


def test_the_agent_tool_declares_its_uses_and_tokens() -> None:
    calls = ToolCallTracker(find={"Agent": AgentTool()}.get)
    report = SubagentOutcome("a1", "Explore", "found it", 3, 12_345, 900)
    view = calls.finished(ToolFinished("a", _ran("a", "Agent", "found it", report), 1)).view
    assert view.result is not None
    assert view.result.summary == "3 tool uses · 12,345 tokens"
    assert view.result.body == "found it"


def test_bash_declares_its_final_tail_and_the_spilled_file() -> None:
    calls = ToolCallTracker(find={"Bash": BashTool()}.get)
    calls.queued(ToolQueued("b", "Bash", {"command": "make"}, "make", False))
    calls.progressed(ToolProgressed("b", ToolProgress(output="streamed\n"), 1.0))
    data = BashResult(
        text="preview", exit_code=0, output_tail="last lines\n", persisted_path="/tmp/o"
    )
    view = calls.finished(ToolFinished("b", _ran("b", "Bash", "preview", data), 1)).view
    assert view.output_tail == "last lines\n"  # the tool's own tail, not the streamed one
    assert view.result is not None and view.result.full_path == "/tmp/o"
    assert view.result.summary == "last lines"  # Bash's result_summary: the last line


@pytest.mark.parametrize(("exists", "warned"), [(False, False), (True, True)])
def test_the_warning_is_the_tools_declaration_where_the_call_runs(
    tmp_path: Path, exists: bool, warned: bool
) -> None:
    """`echo hi > out.txt` destroys data only when out.txt is there (attack round 1, 3f)."""
    from tools.bash import BashTool

    if exists:
        (tmp_path / "out.txt").write_text("old content\n")
    context = ToolContext(cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=())
    raw = {"command": "echo hi > out.txt"}
    prompt = dataclasses.replace(_prompt("Bash", raw, tool=BashTool()), context=context)
    assert question_for(prompt).destructive is warned


def test_a_call_cancelled_by_a_failed_sibling_is_interrupted_not_failed() -> None:
    calls = ToolCallTracker()
    calls.queued(ToolQueued("s1", "Bash", {"command": "make"}, "make", False))
    calls.started(ToolStarted("s1", "Bash", 1.0))
    calls.running(ToolRunning("s1", "Bash", 1.0))
    cancelled = error_outcome(
        "s1", "Bash", "cancelled: a sibling failed", synthetic="sibling_error"
    )
    view = calls.finished(ToolFinished("s1", cancelled, 0.2)).view
    assert view.status == "interrupted"  # it did nothing wrong: another call's error stopped it


def test_a_spilled_output_keeps_its_file_for_a_tool_that_declares_none() -> None:
    # Grep declares no full_path (only Bash does): the executor's persisted file is the link.
    from tools.grep import GrepTool

    calls = ToolCallTracker(find={"Grep": GrepTool()}.get)
    calls.queued(ToolQueued("g", "Grep", {"pattern": "x"}, "x", False))
    block = {"type": "tool_result", "tool_use_id": "g", "content": "many matches"}
    outcome = CallOutcome("g", "Grep", block, False, ran=True, persisted_path="/tmp/spill.txt")
    view = calls.finished(ToolFinished("g", outcome, 0.1)).view
    assert view.result is not None and view.result.full_path == "/tmp/spill.txt"
    failed = error_outcome("h", "Grep", "too big")
    failed.persisted_path = "/tmp/err.txt"
    view = calls.finished(ToolFinished("h", failed, 0.1)).view
    assert view.result is not None and view.result.full_path == "/tmp/err.txt"
