"""Read what one hook said: its exit code, stderr and (Claude Code's) JSON on stdout.

This only reads and validates; it never decides. A field of the wrong type is reported and
ignored, the rest of the output still counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app import jsonlimits
from app.config.hooks import HookHandler
from app.hooks.process import OUTPUT_CAP_BYTES, RawHookRun
from app.hooks.results import HookMessage

_MISSING: Any = object()
PERMISSION_DECISIONS = ("allow", "deny", "ask", "defer")
# Long stderr in a notice helps nobody; the head says what went wrong.
_NOTICE_CHARS = 2000


@dataclass
class HookOutput:
    """One hook's output, read. `block` is exit 2's stderr (or a default when it was empty)."""

    handler: HookHandler
    messages: list[HookMessage] = field(default_factory=list)
    cancelled: bool = False
    succeeded: bool = False
    block: str | None = None
    plain_stdout: str = ""
    continue_: bool = True
    stop_reason: str = ""
    decision: str | None = None
    reason: str = ""
    permission_decision: str | None = None
    permission_reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    additional_context: str = ""
    updated_mcp_output: Any = _MISSING

    @property
    def has_mcp_output(self) -> bool:
        return self.updated_mcp_output is not _MISSING

    def notice(self, text: str, level: Literal["info", "warning", "error"] = "error") -> None:
        self.messages.append(
            HookMessage(f"{self.handler.label}: {text}", level, self.handler.label)
        )


def read_output(handler: HookHandler, run: RawHookRun) -> HookOutput:
    out = HookOutput(handler)
    if run.cancelled:
        out.cancelled = True
        return out
    if run.spawn_error is not None:
        out.notice(f"could not be started: {run.spawn_error}")
        return out
    if run.timed_out:
        out.notice(f"timed out after {handler.timeout:g} s and was killed")
        return out
    for name, truncated in (("stdout", run.stdout_truncated), ("stderr", run.stderr_truncated)):
        if truncated:
            cap_mb = OUTPUT_CAP_BYTES / (1024 * 1024)
            out.notice(
                f"printed more than {cap_mb:g} MB on {name}; the rest was discarded", "warning"
            )
    code = run.exit_code
    stderr = run.stderr.strip()
    if code == 0:
        out.succeeded = True
        _read_stdout(out, run.stdout)
    elif code == 2:
        out.block = stderr or f"{handler.event} hook `{handler.shown}` blocked (no message)"
    elif code is not None and code < 0:
        out.notice(f"crashed (killed by signal {-code}){_tail(stderr)}")
    elif code is not None and 128 < code < 128 + 65:
        # `sh -c` reports a child killed by signal N as 128+N.
        out.notice(f"crashed (killed by signal {code - 128}, exit code {code}){_tail(stderr)}")
    elif code == 127:
        out.notice(f"command not found (exit code 127){_tail(stderr)}")
    else:
        out.notice(f"failed with exit code {code}{_tail(stderr)}")
    return out


def _tail(stderr: str) -> str:
    if not stderr:
        return ""
    if len(stderr) > _NOTICE_CHARS:
        stderr = stderr[:_NOTICE_CHARS] + "…"
    return f": {stderr}"


def _read_stdout(out: HookOutput, stdout: str) -> None:
    text = stdout.strip()
    if not text.startswith("{"):
        out.plain_stdout = text
        return
    try:
        data = jsonlimits.loads(text, "hook output")
    except ValueError as exc:
        out.notice(f"printed invalid JSON ({exc}); its output was ignored")
        return
    if not isinstance(data, Mapping):
        out.notice("printed JSON that is not an object; its output was ignored")
        return
    _read_json(out, data)


def _get(out: HookOutput, data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key, _MISSING)
    if value is _MISSING or value is None:
        return _MISSING
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        out.notice(f"JSON field `{key}` must be {_TYPE_WORDS.get(names, names)}; ignored")
        return _MISSING
    return value


_TYPE_WORDS = {"bool": "true or false", "str": "a string", "Mapping": "an object"}


def _read_json(out: HookOutput, data: Mapping[str, Any]) -> None:
    event = out.handler.event
    if (value := _get(out, data, "continue", bool)) is not _MISSING:
        out.continue_ = value
    if (value := _get(out, data, "stopReason", str)) is not _MISSING:
        out.stop_reason = value
    if (value := _get(out, data, "systemMessage", str)) is not _MISSING and value:
        out.messages.append(HookMessage(value, "warning", out.handler.label))
    _get(out, data, "suppressOutput", bool)  # lathe never shows a tool hook's plain stdout
    if (value := _get(out, data, "decision", str)) is not _MISSING:
        if value in ("block", "approve"):
            out.decision = value
        else:
            out.notice(f'JSON field `decision` must be "block" or "approve", not {value!r}')
    if (value := _get(out, data, "reason", str)) is not _MISSING:
        out.reason = value
    specific = _get(out, data, "hookSpecificOutput", Mapping)
    if specific is _MISSING:
        return
    named = specific.get("hookEventName")
    if named is not None and named != event:
        out.notice(
            f"hookSpecificOutput is for {named!r} but this is a {event} hook; ignored", "warning"
        )
        return
    if (value := _get(out, specific, "additionalContext", str)) is not _MISSING:
        out.additional_context = value
    if event == "PreToolUse":
        if (value := _get(out, specific, "permissionDecision", str)) is not _MISSING:
            if value in PERMISSION_DECISIONS:
                out.permission_decision = value
            else:
                out.notice(
                    "JSON field `permissionDecision` must be one of "
                    f"{', '.join(PERMISSION_DECISIONS)}, not {value!r}; ignored"
                )
        if (value := _get(out, specific, "permissionDecisionReason", str)) is not _MISSING:
            out.permission_reason = value
        if (value := _get(out, specific, "updatedInput", Mapping)) is not _MISSING:
            out.updated_input = dict(value)
    if event == "PermissionRequest":
        _read_permission_request(out, specific)
    if event == "PostToolUse" and "updatedMCPToolOutput" in specific:
        out.updated_mcp_output = specific["updatedMCPToolOutput"]


def _read_permission_request(out: HookOutput, specific: Mapping[str, Any]) -> None:
    """Claude Code's `hookSpecificOutput.decision`: `{behavior: allow|deny, updatedInput,
    message}`: the hook answers the permission dialog in the user's place."""
    decision = _get(out, specific, "decision", Mapping)
    if decision is _MISSING:
        return
    behavior = _get(out, decision, "behavior", str)
    if behavior is _MISSING:
        return
    if behavior not in ("allow", "deny"):
        out.notice(f'decision.behavior must be "allow" or "deny", not {behavior!r}; ignored')
        return
    out.permission_decision = behavior
    if (value := _get(out, decision, "message", str)) is not _MISSING:
        out.permission_reason = value
    if behavior == "allow" and (value := _get(out, decision, "updatedInput", Mapping)) is not (
        _MISSING
    ):
        out.updated_input = dict(value)
