"""CommandHookRunner: runs the configured command hooks of each event, as Claude Code does.

The hooks matching an event run in parallel; each gets Claude Code's stdin JSON, the project dir
as its working folder and `$CLAUDE_PROJECT_DIR`/`$LATHE_PROJECT_DIR`. Their outputs go through the
translation layer; nothing here decides anything, and nothing a hook does can raise out of here.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from app import debuglog
from app.config.hooks import HookConfig, HookEvent, HookHandler
from app.config.rules import tool_and_aliases
from app.hooks.calls import HookContext, HookRunner, HookToolCall
from app.hooks.output import HookOutput, read_output
from app.hooks.process import OUTPUT_CAP_BYTES, RawHookRun, run_command
from app.hooks.remote import PromptAsker, run_http, run_prompt
from app.hooks.results import (
    PermissionRequestHookResult,
    PostToolHookItem,
    PreCompactHookResult,
    PreToolHookItem,
    PromptHookResult,
    SessionEndHookResult,
    SessionStartHookResult,
    StopHookResult,
)
from app.hooks.translate import (
    translate_permission_request,
    translate_post_tool_batch,
    translate_post_tool_use,
    translate_pre_compact,
    translate_pre_tool_use,
    translate_session_end,
    translate_session_start,
    translate_stop,
    translate_user_prompt_submit,
)
from tools.abort import AbortSignal
from tools.base import HookShaped
from tools.process.child_env import add_env_file, child_env
from tools.process.owner import mark_env

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})


class HookObserver(Protocol):
    """Sees command hooks run: `started` returns a token `finished` gets back with the run."""

    def started(self, handler: HookHandler) -> str: ...

    def finished(self, token: str, handler: HookHandler, run: RawHookRun) -> None: ...


class CommandHookRunner:
    """Implements app.execution.interfaces.HookRunner, plus the engine's non-tool events.

    `context` is anything with an `abort` signal (a ToolContext) or None; aborting it kills the
    running hooks' process groups.
    """

    def __init__(
        self,
        config: HookConfig,
        *,
        session_id: str,
        transcript_path: str,
        cwd: str,
        project_dir: str,
        permission_mode: Callable[[], str],
        env: Mapping[str, str] | None = None,
        output_cap: int = OUTPUT_CAP_BYTES,
        env_file_dir: str | None = None,
    ) -> None:
        self.config = config
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.cwd = cwd
        self.project_dir = project_dir
        self.permission_mode = permission_mode
        self.env = dict(env or {})
        self.output_cap = output_cap
        # Where SessionStart hooks get their CLAUDE_ENV_FILE (None: a private temporary folder).
        self.env_file_dir = env_file_dir
        # Runs the handlers of source "sdk" (callbacks a Claude Agent SDK program registered,
        # answered over the control protocol: app/protocol/hooks.py) instead of a command.
        self.callback_runner: (
            Callable[[HookHandler, bytes, AbortSignal | None], Awaitable[RawHookRun]] | None
        ) = None
        # Told as each handler starts and when its run is over (`--include-hook-events`'s
        # hook_started / hook_response lines, app/protocol/hooks.py); None: nobody listens.
        self.observer: HookObserver | None = None
        # Answers prompt hooks (the session's model client); None: they cannot run (a guard's
        # then blocks, app/hooks/remote.py).
        self.prompt_asker: PromptAsker | None = None
        # Fields added to every event's stdin (a subagent's `agent_id` and `agent_type`).
        self.extra_fields: dict[str, Any] = {}
        # Set for a subagent's runner: (agent_id, agent_type, its transcript path).
        self.subagent: tuple[str, str, str] | None = None
        # The user prompt being answered (every event after UserPromptSubmit names it, as in
        # Claude Code 2.1.332), and the `--effort` level the requests carry (None: none sent).
        self.prompt_id = ""
        self.effort: str | None = None
        # Decides a handler's `if` rule against a tool call (app/execution/hook_conditions.py,
        # set by the composition root: the rule matching lives in the permission layer, which
        # this layer does not import). None: a handler with a condition runs for every call its
        # matcher names, as before the condition was read.
        self.condition: Callable[[str, HookToolCall], bool] | None = None

    def for_agent(
        self, agent_id: str, agent_type: str, transcript_path: str = ""
    ) -> CommandHookRunner:
        """The same hooks for a subagent's conversation, as Claude Code runs them: its tool
        events' stdin names the agent (`agent_id`, `agent_type`), its end fires SubagentStop
        instead of Stop, and its prompt (the parent model's, not the user's) no
        UserPromptSubmit."""
        child = copy.copy(self)
        child.extra_fields = {**self.extra_fields, "agent_id": agent_id, "agent_type": agent_type}
        child.subagent = (agent_id, agent_type, transcript_path)
        return child

    def has_hooks(self, event: HookEvent) -> bool:
        return bool(self.config.for_event(event))

    def add_handlers(self, handlers: tuple[HookHandler, ...]) -> Callable[[], None]:
        """Run `handlers` too (a skill's own hooks while it is in scope); the function returned
        takes exactly those out again, whatever else changed meanwhile."""
        self.config = dataclasses.replace(self.config, handlers=(*self.config.handlers, *handlers))

        def remove() -> None:
            kept = tuple(h for h in self.config.handlers if not any(h is x for x in handlers))
            self.config = dataclasses.replace(self.config, handlers=kept)

        return remove

    # --- the tool pipeline (HookRunner) ---------------------------------------------------------

    async def pre_tool_use(
        self, call: HookToolCall, context: HookContext | None
    ) -> list[PreToolHookItem]:
        outputs = await self._run("PreToolUse", call.tool_name, _tool_fields(call), context, call)
        return translate_pre_tool_use(outputs, call.tool_name) if outputs else []

    async def post_tool_use(
        self, call: HookToolCall, response: Any, context: HookContext | None
    ) -> list[PostToolHookItem]:
        fields = {**_tool_fields(call), "tool_response": _hook_response(response)}
        outputs = await self._run("PostToolUse", call.tool_name, fields, context, call)
        return translate_post_tool_use(outputs, call.is_mcp) if outputs else []

    async def post_tool_use_failure(
        self, call: HookToolCall, error: str, context: HookContext | None
    ) -> list[PostToolHookItem]:
        aborted = _abort_of(context)
        fields = {
            **_tool_fields(call),
            "error": error,
            "is_interrupt": bool(aborted is not None and aborted.aborted),
        }
        outputs = await self._run("PostToolUseFailure", call.tool_name, fields, context, call)
        return translate_post_tool_use(outputs, call.is_mcp) if outputs else []

    # --- the engine's events --------------------------------------------------------------------

    async def user_prompt_submit(
        self, prompt: str, context: HookContext | None = None
    ) -> PromptHookResult:
        if self.subagent is not None:
            return PromptHookResult()
        self.prompt_id = str(uuid.uuid4())
        outputs = await self._run("UserPromptSubmit", None, {"prompt": prompt}, context)
        return translate_user_prompt_submit(outputs, prompt)

    async def stop(
        self,
        stop_hook_active: bool,
        context: HookContext | None = None,
        last_assistant_message: str = "",
    ) -> StopHookResult:
        if self.subagent is not None:
            agent_id, agent_type, transcript_path = self.subagent
            return await self.subagent_stop(
                agent_id,
                agent_type,
                transcript_path,
                last_assistant_message,
                stop_hook_active,
                context,
            )
        fields = {
            "stop_hook_active": stop_hook_active,
            "last_assistant_message": last_assistant_message,
        }
        return translate_stop(await self._run("Stop", None, fields, context))

    async def session_start(
        self, source: str, context: HookContext | None = None
    ) -> SessionStartHookResult:
        """Each hook gets its own `CLAUDE_ENV_FILE`; the `export X=Y` lines it writes there are
        sourced before every later Bash command (as Claude Code does)."""
        handlers = self.matching("SessionStart", source)
        if not handlers:
            return translate_session_start([])
        files = _fresh_env_files(self.env_file_dir, len(handlers))
        base = self._env()
        envs = [{**base, "CLAUDE_ENV_FILE": str(f)} for f in files]
        outputs = await self._run_handlers(
            "SessionStart", handlers, {"source": source}, context, envs
        )
        for f in files:
            add_env_file(str(f))
        return translate_session_start(outputs)

    async def session_end(
        self, reason: str, context: HookContext | None = None
    ) -> SessionEndHookResult:
        outputs = await self._run("SessionEnd", reason, {"reason": reason}, context)
        return translate_session_end(outputs)

    async def pre_compact(
        self, trigger: str, custom_instructions: str, context: HookContext | None = None
    ) -> PreCompactHookResult:
        # Claude Code 2.1.332 sends null when the user gave no instructions (measured side by
        # side: bench/cc_faults case g); hooks test `.custom_instructions == null`.
        fields = {"trigger": trigger, "custom_instructions": custom_instructions or None}
        return translate_pre_compact(await self._run("PreCompact", trigger, fields, context))

    async def permission_request(
        self,
        call: HookToolCall,
        suggestions: Sequence[str],
        context: HookContext | None = None,
    ) -> PermissionRequestHookResult:
        """Runs where the permission dialog would show; a hook's decision answers it."""
        fields = {
            "tool_name": call.tool_name,
            "tool_input": dict(call.tool_input),
            "permission_suggestions": [_suggestion(s) for s in suggestions],
        }
        outputs = await self._run("PermissionRequest", call.tool_name, fields, context, call)
        return translate_permission_request(outputs)

    async def notification(
        self, message: str, notification_type: str, context: HookContext | None = None
    ) -> SessionEndHookResult:
        """Claude Code's Notification: lathe waits for the user (a permission dialog,
        `permission_prompt`; an idle prompt, `idle_prompt`). Its output is only shown."""
        fields = {"message": message, "notification_type": notification_type}
        outputs = await self._run("Notification", notification_type, fields, context)
        return translate_session_end(outputs)

    async def post_tool_batch(
        self, calls: Sequence[Mapping[str, Any]], context: HookContext | None = None
    ) -> SessionStartHookResult:
        """Once after each batch of tool results (Claude Code 2.1.332's PostToolBatch,
        measured, ext-r4 F3): `tool_calls` lists each call with its `tool_response`; an
        `additionalContext` goes to the model with the results."""
        if not self.has_hooks("PostToolBatch"):
            return translate_session_start([])
        tool_calls = [
            {
                "tool_name": c["tool_name"],
                "tool_input": dict(c["tool_input"]),
                "tool_use_id": c["tool_use_id"],
                # What the model read (Claude Code 2.1.332 gives Bash's output text here).
                "tool_response": _result_text(c["tool_response"]),
            }
            for c in calls
        ]
        outputs = await self._run("PostToolBatch", None, {"tool_calls": tool_calls}, context)
        return translate_post_tool_batch(outputs)

    async def instructions_loaded(
        self, file_path: str, memory_type: str, context: HookContext | None = None
    ) -> SessionEndHookResult:
        """A memory file was loaded at session start (Claude Code 2.1.332's InstructionsLoaded,
        measured, ext-r4 F3); its matcher is the load reason. Its output is only shown."""
        fields = {
            "file_path": file_path,
            "memory_type": memory_type,
            "load_reason": "session_start",
        }
        outputs = await self._run("InstructionsLoaded", "session_start", fields, context)
        return translate_session_end(outputs)

    async def subagent_start(
        self, agent_id: str, agent_type: str, context: HookContext | None = None
    ) -> SessionStartHookResult:
        """A subagent starts (the Agent tool); `additionalContext` goes to the subagent."""
        fields = {"agent_id": agent_id, "agent_type": agent_type}
        outputs = await self._run("SubagentStart", agent_type, fields, context)
        return translate_session_start(outputs)

    async def subagent_stop(
        self,
        agent_id: str,
        agent_type: str,
        agent_transcript_path: str,
        last_assistant_message: str,
        stop_hook_active: bool,
        context: HookContext | None = None,
    ) -> StopHookResult:
        """A subagent is about to finish; a block makes it go on (as Stop does for the session)."""
        fields = {
            "stop_hook_active": stop_hook_active,
            "agent_id": agent_id,
            "agent_type": agent_type,
            "agent_transcript_path": agent_transcript_path,
            "last_assistant_message": last_assistant_message,
        }
        return translate_stop(await self._run("SubagentStop", agent_type, fields, context))

    # --- running --------------------------------------------------------------------------------

    def matching(
        self, event: HookEvent, value: str | None, call: HookToolCall | None = None
    ) -> list[HookHandler]:
        """The handlers to run; the same command configured twice runs once (as Claude Code).
        A handler with an `if` rule runs only for a tool `call` the rule matches."""
        seen: set[str] = set()
        out: list[HookHandler] = []
        # A tool is matched by its older names too (`"matcher": "Task"` fires for Agent), as in
        # Claude Code, so a guard written for the old name still guards.
        values = tool_and_aliases(value) if value is not None and event in _TOOL_EVENTS else ()
        for handler in self.config.for_event(event):
            if value is not None and not any(
                handler.matcher.matches(v) for v in values or (value,)
            ):
                continue
            if handler.condition and not self._condition_holds(handler.condition, call):
                continue
            key = f"{handler.kind}:{handler.command}:{handler.args!r}"
            if key in seen:
                continue
            seen.add(key)
            out.append(handler)
        return out

    def _condition_holds(self, condition: str, call: HookToolCall | None) -> bool:
        if call is None:
            return False  # not a tool event: Claude Code never runs a handler with an `if`
        return self.condition is None or self.condition(condition, call)

    async def _run(
        self,
        event: HookEvent,
        value: str | None,
        fields: Mapping[str, Any],
        context: HookContext | None,
        call: HookToolCall | None = None,
    ) -> list[HookOutput]:
        handlers = self.matching(event, value, call)
        if not handlers:
            return []
        return await self._run_handlers(event, handlers, fields, context, None)

    async def _run_handlers(
        self,
        event: HookEvent,
        handlers: Sequence[HookHandler],
        fields: Mapping[str, Any],
        context: HookContext | None,
        envs: Sequence[Mapping[str, str]] | None,
    ) -> list[HookOutput]:
        stdin = self._stdin(event, fields, context)
        env = self._env()
        abort = _abort_of(context)
        runs = [
            self._one(h, stdin, envs[i] if envs else env, abort) for i, h in enumerate(handlers)
        ]
        return list(await asyncio.gather(*runs))

    async def _one(
        self, handler: HookHandler, stdin: bytes, env: Mapping[str, str], abort: AbortSignal | None
    ) -> HookOutput:
        try:
            if handler.source == "sdk" and self.callback_runner is not None:
                return read_output(handler, await self.callback_runner(handler, stdin, abort))
            token = self.observer.started(handler) if self.observer is not None else None
            if handler.kind == "http":
                run = await run_http(handler, stdin, {**os.environ, **self.env})
            elif handler.kind == "prompt":
                run = await run_prompt(handler, stdin, self.prompt_asker)
            else:
                run = await run_command(
                    handler.command,
                    stdin,
                    cwd=self.project_dir,
                    env={**env, **dict(handler.env)} if handler.env else env,
                    timeout_s=handler.timeout,
                    abort=abort,
                    cap=self.output_cap,
                    args=handler.args,
                )
            if self.observer is not None and token is not None:
                self.observer.finished(token, handler, run)
            return read_output(handler, run)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug here must be a notice, never a crash of the session
            debuglog.record("hook", f"running the hook {handler.command!r} raised", exc)
            out = HookOutput(handler)
            out.notice(f"could not be run: {type(exc).__name__}: {exc}")
            return out

    def _stdin(
        self, event: HookEvent, fields: Mapping[str, Any], context: HookContext | None
    ) -> bytes:
        try:
            mode = str(self.permission_mode())
        except Exception as exc:
            debuglog.record("hook", "reading the permission mode for a hook raised", exc)
            mode = "default"
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str((context.cwd if context is not None else None) or self.cwd),
            "permission_mode": mode,
            "hook_event_name": event,
            **self.extra_fields,
            **fields,
        }
        _as_claude_code_sends(payload, event, self.prompt_id, self.effort, context)
        try:
            text = json.dumps(payload, default=_jsonable, ensure_ascii=False)
        except (TypeError, ValueError):  # a tool response we cannot encode: say what it was
            if "tool_response" in payload:
                payload["tool_response"] = str(payload["tool_response"])
            text = json.dumps(payload, default=str, ensure_ascii=False)
        return text.encode("utf-8", errors="replace")

    def _env(self) -> dict[str, str]:
        # Hooks are the user's own scripts, but they get what Bash gets: no lathe credentials
        # unless a setting passes one on (tools.process.child_env).
        env = child_env({**os.environ, **self.env})
        env["CLAUDE_PROJECT_DIR"] = self.project_dir
        env["LATHE_PROJECT_DIR"] = self.project_dir
        # The marker lets the reaper stop a hook (and what it started) that outlives lathe.
        mark_env(env)
        return env


def _fresh_env_files(folder_name: str | None, count: int) -> list[Path]:
    folder = Path(folder_name or tempfile.mkdtemp(prefix="lathe-env-"))
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / f"sessionstart-hook-{i}.sh" for i in range(count)]
    for f in files:
        f.write_text("", encoding="utf-8")
    return files


def _suggestion(rule: str) -> dict[str, Any]:
    """A suggested rule in Claude Code's `permission_suggestions` shape."""
    return {
        "type": "addRules",
        "rules": [_rule_value(rule)],
        "behavior": "allow",
        "destination": "localSettings",
    }


def _rule_value(rule: str) -> dict[str, str]:
    name, _, rest = rule.partition("(")
    if rest.endswith(")"):
        return {"toolName": name, "ruleContent": rest[:-1]}
    return {"toolName": rule}


# Claude Code 2.1.332's stdin, field by field (measured on every event against the fake): no
# `permission_mode` on these; `effort` on these (when the requests carry one); Stop and
# SubagentStop list the running background tasks and the session's crons (lathe has none).
_NO_MODE = frozenset({"SessionStart", "SessionEnd", "SubagentStart"})
_WITH_EFFORT = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Stop", "SubagentStop"}
)


def _as_claude_code_sends(
    payload: dict[str, Any],
    event: str,
    prompt_id: str,
    effort: str | None,
    context: HookContext | None,
) -> None:
    if event in _NO_MODE:
        payload.pop("permission_mode", None)
    if prompt_id and event != "SessionStart":
        payload["prompt_id"] = prompt_id
    if effort and event in _WITH_EFFORT:
        payload["effort"] = {"level": effort}
    if event in ("Stop", "SubagentStop"):
        listed = context.background.all() if context is not None else []
        tasks = [t for t in listed if t.status == "running"]
        # The entries' shape with a task running was not measured; id, description, status.
        payload.setdefault("background_tasks", [_task_entry(t) for t in tasks])
        payload.setdefault("session_crons", [])


def _task_entry(task: Any) -> dict[str, Any]:
    return {"id": task.id, "description": task.description, "status": task.status}


def _tool_fields(call: HookToolCall) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tool_name": call.tool_name,
        "tool_input": dict(call.tool_input),
        "tool_use_id": call.tool_use_id,
    }
    if call.duration_ms is not None:
        fields["duration_ms"] = call.duration_ms
    return fields


def _hook_response(response: Any) -> Any:
    """The tool's data in the shape Claude Code's hooks read, where a tool defines one (Bash:
    `{stdout, stderr, interrupted, isImage, noOutputExpected}`), else the data as it is."""
    if isinstance(response, HookShaped):
        try:
            return response.hook_response()
        except Exception as exc:  # a broken shape must not cost the hook its input
            debuglog.record("hook", "a tool's hook_response raised; the data as it is", exc)
            return response
    return response


def _abort_of(context: HookContext | None) -> AbortSignal | None:
    return context.abort if context is not None else None


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


if TYPE_CHECKING:

    def _is_a_hook_runner(runner: CommandHookRunner) -> HookRunner:
        return runner  # mypy proves CommandHookRunner satisfies the pipeline's protocol


def _result_text(content: Any) -> Any:
    """A tool_result's content as PostToolBatch gives it: its text (blocks other than text,
    an image, stay as they are)."""
    if isinstance(content, list) and all(
        isinstance(b, Mapping) and b.get("type") == "text" for b in content
    ):
        return "\n".join(str(b.get("text", "")) for b in content)
    return content
