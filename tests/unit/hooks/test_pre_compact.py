"""PreCompact hooks: configured like Claude Code's (matcher "manual" or "auto"), their stdin has
Claude Code's fields, and exit 2 or `decision: "block"` stops the compaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.config.hooks import HookHandler, Matcher, parse_hook_sources
from app.hooks.output import read_output
from app.hooks.process import RawHookRun
from app.hooks.runner import CommandHookRunner
from app.hooks.translate import translate_pre_compact


def ran(stdout: Any = "", code: int = 0, stderr: str = "") -> Any:
    handler = HookHandler("PreCompact", Matcher(""), "h", 600.0, "user", "/u.toml")
    text = stdout if isinstance(stdout, str) else json.dumps(stdout)
    return read_output(handler, RawHookRun(code, text, stderr))


def test_pre_compact_is_a_known_event_with_a_trigger_matcher() -> None:
    config = parse_hook_sources(
        [
            (
                "user",
                "/u.toml",
                {
                    "PreCompact": [
                        {"matcher": "auto", "hooks": [{"type": "command", "command": "echo hi"}]}
                    ]
                },
            )
        ],
        trusted=True,
    )
    assert not config.problems
    (handler,) = config.for_event("PreCompact")
    assert handler.matcher.matches("auto") and not handler.matcher.matches("manual")


def test_block_by_exit_2_or_decision() -> None:
    assert translate_pre_compact([ran()]).blocked is None
    assert translate_pre_compact([ran(code=2, stderr="not now")]).blocked == "not now"
    blocked = translate_pre_compact([ran({"decision": "block", "reason": "busy"})])
    assert blocked.blocked == "busy"


async def test_runner_sends_claude_codes_fields(tmp_path: Path) -> None:
    out = tmp_path / "in.json"
    config = parse_hook_sources(
        [
            (
                "user",
                "/u.toml",
                {"PreCompact": [{"hooks": [{"type": "command", "command": f"cat > {out}"}]}]},
            )
        ],
        trusted=True,
    )
    runner = CommandHookRunner(
        config,
        session_id="s1",
        transcript_path="/t.jsonl",
        cwd=str(tmp_path),
        project_dir=str(tmp_path),
        permission_mode=lambda: "default",
    )
    result = await runner.pre_compact("auto", "")
    assert result.blocked is None
    payload = json.loads(out.read_text())
    assert payload["hook_event_name"] == "PreCompact"
    assert (
        payload["trigger"] == "auto" and payload["custom_instructions"] is None
    )  # as Claude Code sends it
    assert payload["session_id"] == "s1" and payload["transcript_path"] == "/t.jsonl"
