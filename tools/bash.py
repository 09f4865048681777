"""Bash: run a shell command in the working folder, with live output, limits and a persistent cwd."""

from __future__ import annotations

import os
import re
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.base import (
    CallLabel,
    CanUseTool,
    InterruptBehavior,
    ProgressCallback,
    ResultView,
    Tool,
    ToolContext,
    ToolInput,
    ToolPreview,
    ToolResult,
)
from tools.decisions import ValidationResult
from tools.persisted import result_path
from tools.process.background import BackgroundShell, new_shell_id
from tools.process.capture import OutputCapture
from tools.process.group import DEFAULT_GRACE_S
from tools.process.report import build_report, describe_exit
from tools.process.runner import run_command
from tools.process.throttle import ProgressThrottle
from tools.shell import is_read_only_command
from tools.shell.destructive import is_destructive_command

# Tab and newline are ordinary shell syntax; every other control character (ESC sequences, CR,
# backspace, NUL, C1 controls) and the invisible format characters (zero-width, bidi overrides)
# can make the approval dialog show something other than what runs. Same set as
# tools/shell/parse.py, so the permission layer and this check agree.
_CONTROL_CHARS = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]"
)


class BashInput(ToolInput):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        default=None, description="Optional timeout in milliseconds (max 600000)"
    )
    description: str | None = Field(
        default=None,
        description=(
            "Clear, concise description of what this command does in 5-10 words, in active "
            "voice. Examples: 'List files in current directory', 'Install package dependencies'"
        ),
    )
    run_in_background: bool = Field(
        default=False,
        description=(
            "Set to true to run this command in the background. Use BashOutput to read the "
            "output later and TaskStop to stop it."
        ),
    )


class BashResult(BaseModel):
    """What a Bash call produced; `text` is exactly what the model reads."""

    model_config = ConfigDict(frozen=True)

    text: str
    exit_code: int | None = None
    timed_out: bool = False
    interrupted: bool = False
    output_chars: int = 0
    output_tail: str = ""
    persisted_path: str | None = None
    cwd: str | None = None
    background_id: str | None = None
    stdout: str = ""
    """The command's own stdout (its head when it spilled to a file), for hooks' tool_response."""
    stderr: str = ""

    def hook_response(self) -> dict[str, Any]:
        """Claude Code's Bash `tool_response` shape, which PostToolUse hooks read."""
        # Claude Code 2.1 runs commands with stderr merged into stdout, so its hooks see one
        # `stdout` and an empty `stderr` (measured with 2.1.332); lathe keeps them apart, and
        # gives hooks the same shape: stdout, then stderr.
        merged = "\n".join(part for part in (self.stdout, self.stderr) if part)
        out: dict[str, Any] = {
            "stdout": merged,
            "stderr": "",
            "interrupted": self.interrupted or self.timed_out,
            "isImage": False,
            "noOutputExpected": False,
        }
        if self.background_id:
            out["backgroundTaskId"] = self.background_id
        return out


def _stream_text(capture: OutputCapture) -> str:
    return (capture.head if capture.is_spilled else capture.text()).rstrip("\n")


def session_dir(context: ToolContext) -> str:
    """The session folder, or a private temporary one when the context has none (tests, tools)."""
    if context.session_dir:
        return context.session_dir
    return os.path.join(tempfile.gettempdir(), f"lathe-{os.getuid()}", context.session_id)


def format_duration(ms: int) -> str:
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:g}s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m {rest:g}s" if rest else f"{int(minutes)}m"


class BashTool(Tool[BashInput]):
    name = "Bash"
    refetchable = True
    search_hint = "run shell command terminal execute script git npm make test build"
    input_model = BashInput
    max_result_size_chars = 30_000
    cancels_siblings_on_error = True
    permission_kind = "shell"
    subject_field = "command"

    # -- declarations ---------------------------------------------------------------------------

    def is_read_only(self, input: BashInput) -> bool:
        return _read_only(input.command)

    def is_concurrency_safe(self, input: BashInput) -> bool:
        return _read_only(input.command)

    def is_destructive(self, input: BashInput) -> bool:
        try:
            return is_destructive_command(input.command)
        except Exception:  # an analysis that crashes must fail closed
            return True

    def is_destructive_at(self, input: BashInput, cwd: str) -> bool:
        # `> out.txt`, `cp a b`: destructive only when the target exists where the command runs.
        try:
            return is_destructive_command(input.command, cwd)
        except Exception:  # an analysis that crashes must fail closed
            return True

    def interrupt_behavior(self) -> InterruptBehavior:
        # As Claude Code: "block". A message typed while a command runs waits for it, because
        # killing a half-done `git commit`, migration or `npm install` to deliver a chat message
        # leaves the repository in a state nobody asked for. Ctrl+C / Esc still abort it at once
        # (that is the user interrupt, not this declaration).
        return "block"

    def permission_subject(self, input: BashInput) -> str | None:
        return input.command

    def preview(self, input: BashInput, context: ToolContext) -> ToolPreview | None:
        return ToolPreview("command", input.command, language="bash")

    output_focus = "tail"

    def label(self, input: BashInput) -> CallLabel:
        """The command itself (a multi-line one as its first line and "…"), its description
        dimmed beside it: the person sees what runs, not only what the model says it does."""
        lines = input.command.strip().splitlines() or [""]
        text = lines[0] + (" …" if len(lines) > 1 else "")
        return CallLabel(text, "bash", (input.description or "").strip())

    def summary(self, input: BashInput) -> str:
        if input.description:
            return input.description
        first = input.command.strip().splitlines()[0] if input.command.strip() else ""
        return first[:200]

    def result_summary(self, data: Any) -> str:
        if isinstance(data, BashResult):
            if data.background_id:
                return f"Running in the background ({data.background_id})"
            lines = data.output_tail.strip().splitlines()
            return lines[-1][:200] if lines else "(No output)"
        return ""

    def result_from_record(self, recorded: Any, content: str) -> BashResult | None:
        """Bash's hook shape `{stdout, stderr, interrupted, backgroundTaskId?}`: the output's
        last lines make the summary again (a spilled log's path is not recorded)."""
        if not isinstance(recorded, Mapping) or not isinstance(recorded.get("stdout"), str):
            return None
        stdout, stderr = str(recorded["stdout"]), str(recorded.get("stderr") or "")
        output = "\n".join(part for part in (stdout, stderr) if part)
        background = recorded.get("backgroundTaskId")
        return BashResult(
            text=content,
            interrupted=recorded.get("interrupted") is True,
            output_tail=output[-4096:],  # as the live call keeps it (the last 4096 characters)
            background_id=background if isinstance(background, str) else None,
            stdout=stdout,
            stderr=stderr,
        )

    def result_view(self, data: Any, is_error: bool) -> ResultView | None:
        if isinstance(data, BashResult) and data.background_id and not is_error:
            # The line alone (Claude Code: "Running in the background"): the tool names, ids
            # and log paths of the text are the model's (tui-r4 F6).
            return ResultView(self.result_summary(data), "", own_body=True)
        view = super().result_view(data, is_error)
        if view is not None and isinstance(data, BashResult) and data.persisted_path:
            # The whole output of a spilled command, for the UI's "open all".
            return replace(view, full_path=data.persisted_path)
        return view

    def output_tail(self, data: Any) -> str | None:
        return data.output_tail if isinstance(data, BashResult) else None

    def to_result_content(self, data: Any) -> str | list[dict[str, Any]]:
        if isinstance(data, BashResult):
            return data.text
        return super().to_result_content(data)

    async def validate_input(self, input: BashInput, context: ToolContext) -> ValidationResult:
        if not input.command.strip():
            return ValidationResult.failure("The command is empty.", 1)
        bad = _CONTROL_CHARS.search(input.command)
        if bad:
            return ValidationResult.failure(
                f"The command contains the control character U+{ord(bad.group()):04X} at "
                f"position {bad.start()}. Control characters other than tab and newline are "
                "refused: they can hide part of the command from the person approving it.",
                2,
            )
        if input.timeout is not None and input.timeout <= 0:
            return ValidationResult.failure(
                f"timeout must be a positive number of milliseconds, got {input.timeout}.", 3
            )
        return ValidationResult.success()

    # -- the call ----------------------------------------------------------------------------------

    async def call(
        self,
        input: BashInput,
        context: ToolContext,
        can_use_tool: CanUseTool,
        parent_message: Mapping[str, Any],
        on_progress: ProgressCallback,
    ) -> ToolResult:
        terminals = context.terminals
        if terminals is not None and not input.run_in_background and not context.abort.aborted:
            # A front end's terminal (ACP: the editor's), not a local process.
            from tools.process.terminal_run import run_in_terminal

            limit = int(self.max_result_size_chars)
            return await run_in_terminal(terminals, input, context, limit, on_progress)
        notes: list[str] = []
        cwd = context.cwd
        cwd_modifier = None
        if not os.path.isdir(cwd):  # noqa: ASYNC240 - one stat, no waiting worth a thread
            fallback = context.project_dir
            notes.append(f"Working directory {cwd} no longer exists; ran in {fallback} instead.")
            cwd = fallback
            cwd_modifier = fallback
        if context.abort.aborted:
            return ToolResult(
                BashResult(text="Command was interrupted before it started", interrupted=True),
                is_error=True,
            )
        if input.run_in_background:
            return await self._start_background(input, context, cwd)

        options = context.options
        limit_ms = options.bash_max_timeout_ms
        timeout_ms = min(input.timeout or options.bash_default_timeout_ms, limit_ms)
        call_id = context.tool_use_id or f"bash-{uuid.uuid4().hex[:12]}"
        persist_path = result_path(session_dir(context), call_id)
        throttle = ProgressThrottle(on_progress)
        try:
            outcome = await run_command(
                input.command,
                cwd,
                timeout_s=timeout_ms / 1000,
                abort=context.abort,
                stdout_spill=persist_path,
                stderr_spill=persist_path.with_name(persist_path.stem + ".stderr.txt"),
                memory_limit=self.max_result_size_chars,
                on_output=throttle.push,
                grace_s=float(options.extra.get("bash_kill_grace_s", DEFAULT_GRACE_S)),
            )
        except OSError as exc:
            return ToolResult(BashResult(text=f"Could not start the command: {exc}"), is_error=True)
        finally:
            throttle.close()

        if outcome.timed_out:
            notes.append(f"Command timed out after {format_duration(timeout_ms)}")
        elif outcome.aborted:
            notes.append("Command was interrupted")
        else:
            notes.append(describe_exit(outcome.exit_code))
        if outcome.stopped_leftovers:
            notes.append(
                "Processes the command left running were stopped when it ended; use "
                "run_in_background for servers and watchers."
            )
        new_cwd = self._next_cwd(outcome.final_cwd, cwd, context, notes)
        if new_cwd is not None:
            cwd_modifier = new_cwd

        report = build_report(
            outcome.stdout,
            outcome.stderr,
            notes,
            limit=int(self.max_result_size_chars),
            persist_path=persist_path,
        )
        failed = outcome.timed_out or outcome.aborted or outcome.exit_code != 0
        tail = (outcome.stdout.tail + outcome.stderr.tail)[-4096:]
        result = BashResult(
            text=report.text,
            exit_code=outcome.exit_code,
            timed_out=outcome.timed_out,
            interrupted=outcome.aborted,
            output_chars=report.total_chars,
            output_tail=tail,
            persisted_path=report.persisted_path,
            cwd=cwd_modifier or context.cwd,
            stdout=_stream_text(outcome.stdout),
            stderr=_stream_text(outcome.stderr),
        )
        modifier = None
        if cwd_modifier is not None and cwd_modifier != context.cwd:
            target = cwd_modifier

            def modifier(ctx: ToolContext) -> ToolContext:
                return replace(ctx, cwd=target)

        return ToolResult(result, is_error=failed, context_modifier=modifier)

    def _next_cwd(
        self, final: str | None, ran_in: str, context: ToolContext, notes: list[str]
    ) -> str | None:
        """The folder the next command starts in, if the command moved (and may move) there."""
        if final is None or final == os.path.realpath(ran_in):
            return None
        if not os.path.isdir(final):
            return None
        if not _inside_working_dirs(final, context):
            notes.append(
                f"Shell cwd was reset to {ran_in}: {final} is outside the working folders."
            )
            return None
        return final

    async def _start_background(
        self, input: BashInput, context: ToolContext, cwd: str
    ) -> ToolResult:
        shell_id = new_shell_id()
        log_dir = Path(session_dir(context)) / "background"
        shell = BackgroundShell(shell_id, input.command, input.description or "", log_dir)
        try:
            await shell.start(cwd)
        except OSError as exc:
            return ToolResult(BashResult(text=f"Could not start the command: {exc}"), is_error=True)
        context.background.add(shell)
        shell.on_exit = context.background.report_finished
        text = (
            f"Command running in background with ID: {shell_id}. Read its output with BashOutput "
            f'(bash_id "{shell_id}"); stop it with TaskStop (shell_id "{shell_id}"). '
            f"Full output is also written to {shell.stdout_path} and {shell.stderr_path}."
        )
        return ToolResult(BashResult(text=text, background_id=shell_id, cwd=cwd))


def _read_only(command: str) -> bool:
    try:
        return bool(is_read_only_command(command))
    except Exception:  # an analysis that crashes must fail closed
        return False


def _inside_working_dirs(path: str, context: ToolContext) -> bool:
    roots = context.working_dirs or (context.project_dir,)
    real = Path(os.path.realpath(path))
    inside = any(
        real == Path(os.path.realpath(root)) or real.is_relative_to(os.path.realpath(root))
        for root in roots
        if root
    )
    return inside and context.permissions.is_in_working_dirs(str(real))
