"""SDK hooks: callbacks the SDK program registered in `initialize`, run as `hook_callback` requests.

Each `{"matcher": M, "hookCallbackIds": [...], "timeout": S}` of the initialize request becomes a
hook handler of source "sdk" beside the settings' command hooks, so the same matching, the same
stdin JSON (sent as the request's `input`) and the same reading of the answer (Claude Code's hook
JSON, as if a command hook had printed it and exited 0) apply; nothing decides twice. A callback
that fails or times out is a non-blocking hook error, as a crashing command hook is.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from app.config.hooks import HOOK_EVENTS, HookHandler, Matcher
from app.hooks.process import RawHookRun
from app.hooks.runner import CommandHookRunner
from app.protocol.control import ControlChannel, ControlError
from app.protocol.wire import LineWriter, new_uuid, system_line
from tools.abort import AbortSignal

SDK_HOOK_TIMEOUT_S = 60.0  # the SDK's default for a matcher without `timeout`
_PREFIX = "sdk-callback:"


def sdk_handlers(hooks: Any) -> tuple[list[HookHandler], list[str]]:
    """The handlers of an initialize request's `hooks`, and a problem per entry skipped."""
    handlers: list[HookHandler] = []
    problems: list[str] = []
    if not isinstance(hooks, Mapping):
        return handlers, problems
    for event, matchers in hooks.items():
        if event not in HOOK_EVENTS:
            problems.append(
                f"SDK hook event {event!r} is not one lathe runs; its callbacks are ignored"
            )
            continue
        for entry in matchers if isinstance(matchers, list) else []:
            if not isinstance(entry, Mapping):
                continue
            try:
                matcher = Matcher.parse(str(entry.get("matcher") or ""))
            except Exception as exc:
                problems.append(f"SDK {event} hook matcher {entry.get('matcher')!r}: {exc}")
                continue
            timeout = entry.get("timeout")
            seconds = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
            for callback_id in entry.get("hookCallbackIds") or []:
                handlers.append(
                    HookHandler(
                        event=event,
                        matcher=matcher,
                        command=f"{_PREFIX}{callback_id}",
                        timeout=seconds or SDK_HOOK_TIMEOUT_S,
                        source="sdk",
                        path="initialize",
                    )
                )
    return handlers, problems


def _nothing() -> None:
    return None


class SdkHookBridge:
    def __init__(
        self, channel: ControlChannel, writer: LineWriter, session_id: str, emit_events: bool
    ) -> None:
        self.channel = channel
        self.writer = writer
        self.session_id = session_id
        self.emit_events = emit_events

    def install(self, runner: CommandHookRunner, hooks: Any, warn: Callable[[str], None]) -> int:
        """Add the SDK's callbacks to the runner's handlers; returns how many."""
        handlers, problems = sdk_handlers(hooks)
        for problem in problems:
            warn(problem)
        kept = tuple(h for h in runner.config.handlers if h.source != "sdk")
        runner.config = replace(runner.config, handlers=(*kept, *handlers))
        runner.callback_runner = self.run
        self.observe(runner)
        return len(handlers)

    def observe(self, runner: CommandHookRunner) -> None:
        """`--include-hook-events`: the settings' command hooks are reported too."""
        if self.emit_events:
            runner.observer = self

    async def run(
        self, handler: HookHandler, stdin: bytes, abort: AbortSignal | None
    ) -> RawHookRun:
        started = time.monotonic()
        payload = json.loads(stdin.decode("utf-8", "replace"))
        callback_id = handler.command.removeprefix(_PREFIX)
        hook_id = self.started(handler)
        body = {"callback_id": callback_id, "input": payload}
        if isinstance(payload.get("tool_use_id"), str):
            body["tool_use_id"] = payload["tool_use_id"]
        request = asyncio.ensure_future(self.channel.request("hook_callback", body))

        def stop() -> None:
            request.cancel()

        remove = abort.add_listener(stop) if abort is not None else _nothing
        try:
            answer = await asyncio.wait_for(request, handler.timeout)
        except asyncio.CancelledError:
            if abort is not None and abort.aborted:
                run = RawHookRun(None, "", "", cancelled=True)
                self.finished(hook_id, handler, run)
                return run
            raise
        except TimeoutError:
            run = RawHookRun(None, "", "", timed_out=True, duration_s=handler.timeout)
            self.finished(hook_id, handler, run)
            return run
        except ControlError as exc:
            run = RawHookRun(1, "", f"the SDK's hook callback failed: {exc}")
            self.finished(hook_id, handler, run)
            return run
        finally:
            remove()
        run = RawHookRun(0, json.dumps(answer), "", duration_s=time.monotonic() - started)
        self.finished(hook_id, handler, run)
        return run

    # -- `--include-hook-events`: the runner's HookObserver, for command hooks and callbacks --

    def started(self, handler: HookHandler) -> str:
        hook_id = new_uuid()
        if self.emit_events:
            self.writer.line(
                system_line("hook_started", self.session_id, **_names(handler, hook_id))
            )
        return hook_id

    def finished(self, token: str, handler: HookHandler, run: RawHookRun) -> None:
        """Claude Code 2.1.332's hook_response: `output` (stdout and stderr), both streams, the
        exit code and `outcome` (success for exit 0, cancelled for an interrupted hook, else
        error)."""
        if not self.emit_events:
            return
        if run.cancelled:
            outcome = "cancelled"
        elif run.exit_code == 0 and not run.timed_out and run.spawn_error is None:
            outcome = "success"
        else:
            outcome = "error"
        stderr = run.stderr or run.spawn_error or ""
        self.writer.line(
            system_line(
                "hook_response",
                self.session_id,
                **_names(handler, token),
                output=run.stdout + stderr,
                stdout=run.stdout,
                stderr=stderr,
                exit_code=run.exit_code,
                outcome=outcome,
            )
        )


def _names(handler: HookHandler, hook_id: str) -> dict[str, Any]:
    """`hook_name` as Claude Code writes it: `PreToolUse:Bash`, or the event alone."""
    matcher = handler.matcher.text
    name = f"{handler.event}:{matcher}" if matcher else handler.event
    return {"hook_id": hook_id, "hook_name": name, "hook_event": handler.event}
