"""Fail-closed concurrency safety: a call is safe only if everything about it says so."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import debuglog
from tools.base import InputError, Tool


def call_safety(tool: Tool[Any] | None, raw_input: Any) -> tuple[bool, Any]:
    """(safe, parsed input). Safe only if the tool is found, its input parses, and it says so
    without raising; anything else runs alone."""
    if tool is None or not isinstance(raw_input, Mapping):
        return False, None
    try:
        parsed = tool.parse_input(raw_input)
    except InputError:
        return False, None  # the model's input: the pipeline answers it with the message
    except Exception as exc:
        debuglog.record("executor", f"{tool.name}.parse_input raised; the call runs alone", exc)
        return False, None
    try:
        return tool.is_concurrency_safe(parsed) is True, parsed
    except Exception as exc:
        debuglog.record("executor", f"{tool.name}.is_concurrency_safe raised; runs alone", exc)
        return False, parsed


def is_call_concurrency_safe(tool: Tool[Any] | None, raw_input: Any) -> bool:
    return call_safety(tool, raw_input)[0]


def interrupt_behavior_of(tool: Tool[Any] | None) -> str:
    if tool is None:
        return "cancel"  # nothing runs for an unknown tool; nothing to wait for
    try:
        return "cancel" if tool.interrupt_behavior() == "cancel" else "block"
    except Exception as exc:
        debuglog.record("executor", f"{tool.name}.interrupt_behavior raised; it blocks", exc)
        return "block"
