"""The front-end API's views: executor events become frozen ToolCallViews, a PermissionPrompt a
PermissionQuestion whose answer is the prompt's, and previews read the real file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.engine.tool_views import ToolCallTracker, question_for
from app.execution.events import ToolFinished, ToolProgressed, ToolQueued, ToolStarted
from app.execution.interfaces import PermissionPrompt
from app.execution.outcome import CallOutcome, error_outcome
from app.execution.resolve_once import ResolveOnce
from tools.base import ToolContext, ToolPreview, ToolProgress
from tools.decisions import DecisionReason


def _done(tool_use_id: str, text: str, **kw: object) -> CallOutcome:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    return CallOutcome(tool_use_id, "Bash", block, False, **kw)  # type: ignore[arg-type]


def test_a_call_from_queued_to_done() -> None:
    calls = ToolCallTracker()
    queued = calls.queued(ToolQueued("b1", "Bash", {"command": "ls"}, "ls", False))
    assert (queued.change, queued.view.status, queued.view.title) == ("queued", "queued", "ls")
    started = calls.started(ToolStarted("b1", "Bash", 12.5))
    assert started.view.status == "running" and started.view.started_at == 12.5
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

    class Change:
        diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n"

    edit = calls.finished(ToolFinished("e", _done("e", "The file was updated.", data=Change()), 0))
    assert edit.view.result is not None and edit.view.result.kind == "diff"
    # Shown without the header lines (the block names the file): app/engine/plain_words.py.
    assert edit.view.result.body == "@@ -1 +1 @@\n-x\n+y\n"
    assert edit.view.result.summary == "The file was updated."


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
    assert answered is not None and answered.view.status == "running"
    assert answered.view.started_at == 130.0  # the clock starts when execution does
    done = calls.finished(ToolFinished("b1", _done("b1", "ok"), 31.5)).view
    assert done.elapsed == 1.5  # the executor's 31.5 s less the 30 s wait
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
