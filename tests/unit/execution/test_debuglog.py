"""LATHE_LOG: every exception lathe catches and goes on from is written to the file, with its
traceback, from the real places that catch them (the executor, its event sink, hooks)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from app import debuglog
from app.config.hooks import HookSource, parse_hook_sources
from app.execution.pipeline import PipelineDeps
from app.execution.streaming_executor import StreamingToolExecutor
from app.hooks.calls import HookToolCall
from app.hooks.runner import CommandHookRunner
from tests.support.fake_tools import AllowAll, SafeSleep, tool_use
from tools.base import (
    CanUseTool,
    ProgressCallback,
    Tool,
    ToolContext,
    ToolInput,
    ToolResult,
)

HEADER = re.compile(
    r"^--- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z pid=\d+ "
    r"area=(sink|hook|mcp|executor|permissions|engine)$"
)
MSG: dict[str, Any] = {"role": "assistant", "content": []}


def entries(path: Path) -> list[list[str]]:
    """The log's entries, each as its lines (header first)."""
    out: list[list[str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("--- "):
            out.append([])
        out[-1].append(line)
    return out


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "lathe.log"
    monkeypatch.setenv("LATHE_LOG", str(path))
    return path


def test_unset_means_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LATHE_LOG", raising=False)
    monkeypatch.chdir(tmp_path)
    try:
        raise ValueError("nobody listens")
    except ValueError:
        debuglog.record("sink", "a test")
    assert list(tmp_path.iterdir()) == []


def test_entry_format_appends_privately_and_redacts(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-1234")
    try:
        raise RuntimeError("failed with key sk-ant-secret-value-1234")
    except RuntimeError:
        debuglog.record("hook", "the first\nfailure")
    debuglog.record("mcp", "the second", ValueError("given explicitly"))
    first, second = entries(log)
    assert HEADER.match(first[0]) and "area=hook" in first[0]
    assert first[1] == "the first failure"  # one line, whatever it was given
    assert first[2] == "Traceback (most recent call last):"
    assert first[-1] == "RuntimeError: failed with key [redacted]"
    assert "sk-ant-secret" not in log.read_text()
    assert HEADER.match(second[0]) and second[1:] == ["the second", "ValueError: given explicitly"]
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600


def test_an_unwritable_log_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LATHE_LOG", str(tmp_path / "missing-folder" / "x.log"))
    debuglog.record("sink", "nowhere to write", ValueError("x"))


class _BrokenInput(ToolInput):
    pass


class Broken(Tool[_BrokenInput]):
    """A tool whose call has a bug (not a ToolError): the model reads an error tool_result."""

    name = "Broken"
    input_model = _BrokenInput

    async def call(
        self,
        input: _BrokenInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        raise KeyError("a bug inside the tool")


async def test_executor_and_its_sink_record_what_they_swallow(
    log: Path, ctx: ToolContext, recorder: Any
) -> None:
    def sink(event: object) -> None:
        raise ZeroDivisionError("front end bug")

    deps = PipelineDeps([Broken(), SafeSleep(recorder)], decider=AllowAll())
    ex = StreamingToolExecutor(deps, ctx, on_event=sink)
    ex.add_tool(tool_use("b1", "Broken"), MSG)
    outcomes = [o async for o in ex.get_remaining_results()]
    # Behaviour is unchanged: exactly one error tool_result, the session goes on.
    assert [o.tool_use_id for o in outcomes] == ["b1"] and outcomes[0].is_error
    logged = entries(log)
    executor = [e for e in logged if "area=executor" in e[0]]
    assert len(executor) == 1 and "Broken.call (b1) raised" in executor[0][1]
    assert executor[0][-1] == "KeyError: 'a bug inside the tool'"
    assert any("in call" in line for line in executor[0])  # the traceback reaches the tool
    sinks = [e for e in logged if "area=sink" in e[0]]
    # Every event the observer refused: queued, started, running, finished.
    kinds = sorted(e[1].rsplit(" ", 1)[-1] for e in sinks)
    assert kinds == ["ToolFinished", "ToolQueued", "ToolRunning", "ToolStarted"]
    assert all(e[-1] == "ZeroDivisionError: front end bug" for e in sinks)


async def test_hook_runner_records_what_it_swallows(log: Path, tmp_path: Path) -> None:
    hooks = {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]}
    config = parse_hook_sources([HookSource("user", "/u/settings.json", hooks)], True)

    def broken_mode() -> str:
        raise LookupError("no mode")

    runner = CommandHookRunner(
        config,
        session_id="s1",
        transcript_path=str(tmp_path / "t.jsonl"),
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        permission_mode=broken_mode,
        env_file_dir=str(tmp_path / "envs"),
    )
    ctx = ToolContext(cwd=str(tmp_path), project_dir=str(tmp_path), working_dirs=(str(tmp_path),))
    await runner.pre_tool_use(HookToolCall("Bash", {"command": "ls"}, "t1"), ctx)
    (entry,) = entries(log)
    assert "area=hook" in entry[0] and "permission mode" in entry[1]
    assert entry[-1] == "LookupError: no mode"
