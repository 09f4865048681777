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
from typing import Any

from app.engine.api import ControlsPort, HookCallback, HookRun, HookView
from app.protocol.control import ControlChannel, ControlError
from app.protocol.wire import LineWriter, new_uuid, system_line
from tools.abort import AbortSignal

SDK_HOOK_TIMEOUT_S = 60.0  # the SDK's default for a matcher without `timeout`


def sdk_callbacks(hooks: Any) -> list[HookCallback]:
    """The callbacks of an initialize request's `hooks` (`{EVENT: [{matcher, hookCallbackIds,
    timeout}]}`); the engine checks the events and matchers when they are registered."""
    callbacks: list[HookCallback] = []
    if not isinstance(hooks, Mapping):
        return callbacks
    for event, matchers in hooks.items():
        for entry in matchers if isinstance(matchers, list) else []:
            if not isinstance(entry, Mapping):
                continue
            timeout = entry.get("timeout")
            seconds = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
            for callback_id in entry.get("hookCallbackIds") or []:
                callbacks.append(
                    HookCallback(
                        str(event),
                        str(entry.get("matcher") or ""),
                        str(callback_id),
                        seconds or SDK_HOOK_TIMEOUT_S,
                    )
                )
    return callbacks


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

    def install(self, controls: ControlsPort, hooks: Any, warn: Callable[[str], None]) -> int:
        """Register the SDK's callbacks with the session; returns how many."""
        count, problems = controls.register_hook_callbacks(sdk_callbacks(hooks), self.run)
        for problem in problems:
            warn(problem)
        self.observe(controls)
        return count

    def observe(self, controls: ControlsPort) -> None:
        """`--include-hook-events`: the settings' command hooks are reported too."""
        if self.emit_events:
            controls.watch_hooks(self)

    async def run(
        self, hook: HookView, payload: Mapping[str, Any], abort: AbortSignal | None
    ) -> HookRun:
        started = time.monotonic()
        hook_id = self.started(hook)
        body: dict[str, Any] = {"callback_id": hook.callback_id, "input": dict(payload)}
        if isinstance(payload.get("tool_use_id"), str):
            body["tool_use_id"] = payload["tool_use_id"]
        request = asyncio.ensure_future(self.channel.request("hook_callback", body))

        def stop() -> None:
            request.cancel()

        remove = abort.add_listener(stop) if abort is not None else _nothing
        try:
            answer = await asyncio.wait_for(request, hook.timeout)
        except asyncio.CancelledError:
            if abort is not None and abort.aborted:
                run = HookRun(None, "", "", cancelled=True)
                self.finished(hook_id, hook, run)
                return run
            raise
        except TimeoutError:
            run = HookRun(None, "", "", timed_out=True, duration_s=hook.timeout)
            self.finished(hook_id, hook, run)
            return run
        except ControlError as exc:
            run = HookRun(1, "", f"the SDK's hook callback failed: {exc}")
            self.finished(hook_id, hook, run)
            return run
        finally:
            remove()
        run = HookRun(0, json.dumps(answer), "", duration_s=time.monotonic() - started)
        self.finished(hook_id, hook, run)
        return run

    # -- `--include-hook-events`: the session's HookWatcher, for command hooks and callbacks --

    def started(self, handler: HookView) -> str:
        hook_id = new_uuid()
        if self.emit_events:
            self.writer.line(
                system_line("hook_started", self.session_id, **_names(handler, hook_id))
            )
        return hook_id

    def finished(self, token: str, handler: HookView, run: HookRun) -> None:
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


def _names(handler: HookView, hook_id: str) -> dict[str, Any]:
    """`hook_name` as Claude Code writes it: `PreToolUse:Bash`, or the event alone."""
    matcher = handler.matcher
    name = f"{handler.event}:{matcher}" if matcher else handler.event
    return {"hook_id": hook_id, "hook_name": name, "hook_event": handler.event}
