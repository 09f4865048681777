"""Reading what a run left: transcript lines, dangling tool calls, prompts in a request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.cc_faults.fake import FaultFake, Seen, user_texts


def _walk(value: Any, uses: set[str], results: set[str]) -> None:
    if isinstance(value, dict):
        if value.get("type") == "tool_use" and isinstance(value.get("id"), str):
            uses.add(value["id"])
        if value.get("type") == "tool_result" and isinstance(value.get("tool_use_id"), str):
            results.add(value["tool_use_id"])
        for v in value.values():
            _walk(v, uses, results)
    elif isinstance(value, list):
        for v in value:
            _walk(v, uses, results)


def transcript_state(files: list[Path]) -> dict[str, int]:
    """Lines, lines that are not JSON, tool_use ids without a tool_result, over all the files."""
    lines = bad = 0
    uses: set[str] = set()
    results: set[str] = set()
    for f in files:
        for raw in f.read_bytes().splitlines():
            if not raw.strip():
                continue
            lines += 1
            try:
                _walk(json.loads(raw), uses, results)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                bad += 1
    return {"lines": lines, "bad": bad, "dangling": len(uses - results), "files": len(files)}


def answered_calls(files: list[Path]) -> set[str]:
    """tool_use ids that have a tool_result in the transcript files."""
    uses: set[str] = set()
    results: set[str] = set()
    for f in files:
        for raw in f.read_bytes().splitlines():
            try:
                _walk(json.loads(raw), uses, results)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                continue
    return uses & results


def has_all(seen: Seen, marks: list[str]) -> list[str]:
    """The marks missing from the request's user texts."""
    text = "\n".join(user_texts(seen.body))
    return [m for m in marks if m not in text]


def invalid(fake: FaultFake) -> int:
    return sum(
        1 for s in fake.seen() if s.status == 400 and s.problem and "too long" not in s.problem
    )


def last_main(fake: FaultFake) -> Seen | None:
    mains = [s for s in fake.seen() if s.kind in ("bash", "main", "results")]
    return mains[-1] if mains else None
