"""Pieces every file tool shares: path normalisation for observers and path validation."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from tools.base import ToolContext
from tools.decisions import ValidationResult
from tools.files.paths import is_unc_path

UNC_REFUSED = (
    "UNC paths (\\\\host\\share or //host/share) are not allowed: opening one would send your "
    "credentials to that host."
)


def absolute_for_rules(path: str) -> str:
    """The best absolute form available without a context (relative paths stay relative)."""
    expanded = os.path.expanduser(path)
    if is_unc_path(expanded):
        return expanded
    return os.path.normpath(expanded) if os.path.isabs(expanded) else expanded


def backfill_path(input: dict[str, Any], key: str, context: ToolContext) -> None:
    value = input.get(key)
    if isinstance(value, str) and value and not is_unc_path(value):
        input[key] = context.resolve_path(value)


def check_path(
    tool_name: str, raw: str, context: ToolContext, access: Literal["read", "write"]
) -> tuple[str, ValidationResult | None]:
    """The resolved path, or a failure: UNC refused before any I/O, then the deny rules."""
    if is_unc_path(raw) or is_unc_path(os.path.expanduser(raw)):
        return raw, ValidationResult.failure(UNC_REFUSED, error_code=2)
    path = context.resolve_path(raw)
    decision = context.permissions.check_path(tool_name, path, access)
    if decision.behavior == "deny":
        message = decision.message or (
            f"Permission to {access} {path} has been denied by your permission settings."
        )
        return path, ValidationResult.denied(message)
    return path, None


def readable(paths: Iterable[str], context: ToolContext, tool_name: str = "Read") -> list[str]:
    """The paths a Read deny rule does not cover: a search must not show what Read may not."""
    view = context.permissions
    out: list[str] = []
    for path in paths:
        absolute = path if os.path.isabs(path) else context.resolve_path(path)
        if view.check_path(tool_name, absolute, "read").behavior != "deny":
            out.append(path)
    return out


class PathArgument:
    """For tools whose input names one path (`subject_field`): rules match its absolute form, and
    observers (hooks, rules) see it absolute with `~` expanded. Mixed in before the Tool base,
    beside `permission_kind = "path_read"` or `"path_write"`."""

    subject_field: ClassVar[str | None] = "file_path"

    def permission_subject(self, input: Any) -> str | None:
        value = getattr(input, self.subject_field or "", None)
        return absolute_for_rules(value) if value else None

    def backfill_observable_input(self, input: dict[str, Any], context: ToolContext) -> None:
        backfill_path(input, self.subject_field or "", context)
