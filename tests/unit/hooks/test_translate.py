"""The translation layer on recorded hook runs: it translates and aggregates, never decides."""

from __future__ import annotations

import json
from typing import Any

from app.config.hooks import HookHandler, Matcher
from app.hooks.output import read_output
from app.hooks.process import RawHookRun
from app.hooks.results import (
    HookAdditionalContext,
    HookMessage,
    HookPermissionResult,
    HookUpdatedInput,
)
from app.hooks.translate import CONTEXT_CAP_CHARS, translate_pre_tool_use


def handler(command: str, event: Any = "PreToolUse") -> HookHandler:
    return HookHandler(event, Matcher(""), command, 600.0, "user", "/u.toml")


def ran(command: str, stdout: Any = "", code: int = 0, stderr: str = "", event: Any = "PreToolUse"):  # type: ignore[no-untyped-def]
    text = stdout if isinstance(stdout, str) else json.dumps(stdout)
    return read_output(handler(command, event), RawHookRun(code, text, stderr))


def pre(decision: str, reason: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
            **extra,
        }
    }


def test_deny_reasons_of_all_denying_hooks_are_kept_and_updated_input_dropped() -> None:
    items = translate_pre_tool_use(
        [
            ran("a", pre("allow", updatedInput={"x": 1})),
            ran("b", pre("deny", "no network")),
            ran("c", code=2, stderr="not on main"),
        ],
        "Bash",
    )
    (perm,) = [i for i in items if isinstance(i, HookPermissionResult)]
    assert perm.behavior == "deny"
    assert perm.reason == "no network; PreToolUse:Bash hook error: [c]: not on main"
    assert "`b`" in perm.hook and "`c`" in perm.hook
    assert not [i for i in items if isinstance(i, HookUpdatedInput)]


def test_highest_precedence_updated_input_wins() -> None:
    items = translate_pre_tool_use(
        [
            ran("low", pre("allow", updatedInput={"v": 1})),
            ran("high", pre("ask", updatedInput={"v": 2})),
        ],
        "Bash",
    )
    (upd,) = [i for i in items if isinstance(i, HookUpdatedInput)]
    assert upd.input == {"v": 2}
    assert [i.behavior for i in items if isinstance(i, HookPermissionResult)] == ["ask"]


def test_no_opinion_gives_no_permission_item() -> None:
    assert translate_pre_tool_use([ran("a", "just chatting"), ran("b", "")], "Bash") == []


def test_context_is_capped() -> None:
    items = translate_pre_tool_use(
        [ran("a", {"hookSpecificOutput": {"additionalContext": "z" * 50_000}})], "Bash"
    )
    (ctx,) = items
    assert isinstance(ctx, HookAdditionalContext)
    assert len(ctx.text) < CONTEXT_CAP_CHARS + 100 and "truncated" in ctx.text


def test_output_for_another_event_is_ignored_with_a_warning() -> None:
    items = translate_pre_tool_use(
        [
            ran(
                "a",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PostToolUse",
                        "permissionDecision": "allow",
                    }
                },
            )
        ],
        "Bash",
    )
    assert [type(i) for i in items] == [HookMessage]
    assert isinstance(items[0], HookMessage) and items[0].level == "warning"


def test_exit_2_with_no_stderr_still_explains() -> None:
    items = translate_pre_tool_use([ran("a", code=2)], "Bash")
    (perm,) = items
    assert isinstance(perm, HookPermissionResult) and perm.behavior == "deny"
    assert "blocked (no message)" in perm.reason


def test_exit_2_ignores_stdout_json() -> None:
    items = translate_pre_tool_use([ran("a", pre("allow"), code=2, stderr="no")], "Bash")
    assert [i.behavior for i in items if isinstance(i, HookPermissionResult)] == ["deny"]
