"""A replayed edit's diff: the tool rebuilds it from the recorded call's input (the transcript
keeps the input, not the diff), so a resumed Edit shows its "+N -M" and its diff as the live one
did, and a denied one the change the user turned down (the live view kept it as its preview)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app import debuglog
from app.engine.views import ToolCallView, ToolPreview
from tools.base import Tool


def with_recorded_change(view: ToolCallView, tool: Tool[Any] | None, cwd: str) -> ToolCallView:
    """`view` with the diff of an edit that was made (its result) or denied (its preview)."""
    applied = view.status == "done"
    if tool is None or tool.permission_kind != "path_write" or not cwd:
        return view
    if not applied and view.status != "denied":
        return view
    try:
        rebuilt = tool.recorded_view(tool.parse_input(view.input), applied, cwd)
    except Exception as exc:  # bad recorded input or a broken declaration: the view as it was
        debuglog.record("engine", f"{tool.name}.recorded_view raised", exc)
        return view
    if rebuilt is None or rebuilt.kind != "diff" or not rebuilt.body:
        return view
    if applied:
        return replace(view, result=rebuilt)
    return replace(view, preview=ToolPreview("diff", rebuilt.body))
