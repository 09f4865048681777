"""Request building: system prompt, memory files, tools, cache breakpoints."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.model.request import build_request, build_system, build_tools, with_user_breakpoint
from app.model.validate import RequestInvalid, count_cache_breakpoints, validate_request

TOOLS = [
    {"name": n, "description": n, "input_schema": {"type": "object", "properties": {}}}
    for n in ("Read", "Bash", "Edit", "mcp__srv__x")
]


def convo(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i in range(turns):
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Read", "input": {}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "x"}],
            }
        )
    return messages


def test_system_prompt_environment_and_memory(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "CLAUDE.md").write_text("Always use tabs.")
    (project / "AGENTS.md").write_text("Run make test.")
    config = tmp_path / "config"
    config.mkdir()
    (config / "LATHE.md").write_text("I am the user memory.")
    system = build_system(project / "sub", config_dir=config, today=dt.date(2025, 3, 4))
    text = "\n".join(b["text"] for b in system)
    assert f"Working directory: {project / 'sub'}" in text
    assert "Is directory a git repo: Yes" in text
    assert "2025-03-04" in text
    assert "Always use tabs." in text and "Run make test." in text
    assert text.index("I am the user memory.") < text.index("Always use tabs.")
    assert [("cache_control" in b) for b in system] == [False, True]


def test_system_prompt_without_git_or_memory(tmp_path: Path) -> None:
    system = build_system(tmp_path)
    assert len(system) == 1 and system[0]["cache_control"] == {"type": "ephemeral"}
    assert "Is directory a git repo: No" in system[0]["text"]


def test_undecodable_memory_file_does_not_break(tmp_path: Path) -> None:
    (tmp_path / "LATHE.md").write_bytes(b"ok \xff\xfe bytes")
    (tmp_path / "CLAUDE.md").mkdir()  # a folder by that name is skipped
    text = "".join(b["text"] for b in build_system(tmp_path, project_root=tmp_path))
    assert "ok" in text and "bytes" in text


def test_tool_breakpoint_on_last_builtin_only() -> None:
    tools = build_tools([{**TOOLS[0], "cache_control": {"type": "ephemeral"}}, *TOOLS[1:]], 2)
    assert [("cache_control" in t) for t in tools] == [False, False, True, False]
    assert "cache_control" not in TOOLS[2]  # the caller's definitions are not mutated


def test_newest_user_turn_breakpoint_moves_and_old_ones_are_removed() -> None:
    messages = convo(2)
    messages[2]["content"][0]["cache_control"] = {
        "type": "ephemeral"
    }  # left from a previous request
    out = with_user_breakpoint(messages)
    assert count_cache_breakpoints({"messages": out}) == 1
    assert out[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" in messages[2]["content"][0]  # input untouched


def test_string_user_content_becomes_block_with_breakpoint() -> None:
    out = with_user_breakpoint([{"role": "user", "content": "hello"}])
    assert out[0]["content"] == [
        {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
    ]


@pytest.mark.parametrize("turns", [0, 1, 5])
def test_full_request_has_at_most_four_breakpoints_and_is_valid(tmp_path: Path, turns: int) -> None:
    params = build_request(
        model="claude-sonnet-4-6",
        system=build_system(tmp_path),
        tools=TOOLS,
        last_builtin=2,
        messages=convo(turns),
        max_tokens=1000,
    )
    assert count_cache_breakpoints(params) == 3
    validate_request(params)
    assert params["tools"][2]["cache_control"] == {"type": "ephemeral"}
    assert params["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_too_many_breakpoints_refused(tmp_path: Path) -> None:
    system = [
        {"type": "text", "text": f"s{i}", "cache_control": {"type": "ephemeral"}} for i in range(3)
    ]
    with pytest.raises(ValueError, match="5 cache breakpoints"):
        build_request(model="m", system=system, tools=TOOLS, last_builtin=0, messages=convo(0))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"model": "m", "messages": [{"role": "user", "content": "x"}]},
            "max_tokens: Field required",
        ),
        ({"model": "m", "max_tokens": 5, "messages": []}, "at least one message"),
        (
            {"model": "m", "max_tokens": 5, "messages": [{"role": "assistant", "content": "x"}]},
            "first message",
        ),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "x"}, {"role": "user", "content": "y"}],
            },
            "alternate",
        ),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "x"}],
                "tools": [TOOLS[0], TOOLS[0]],
            },
            "Tool names must be unique",
        ),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "x"}],
                "tools": [{"name": "A"}],
            },
            "input_schema: Field required",
        ),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_zz", "content": "x"}
                        ],
                    }
                ],
            },
            "unexpected `tool_use_id`",
        ),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [
                    *convo(1)[:2],
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "first"},
                            {"type": "tool_result", "tool_use_id": "toolu_0", "content": "x"},
                        ],
                    },
                ],
            },
            "must come first",
        ),
        ({"model": "m", "max_tokens": 5, "messages": convo(1)[:2]}, "without `tool_result`"),
        (
            {
                "model": "m",
                "max_tokens": 5,
                "system": [
                    {"type": "text", "text": str(i), "cache_control": {"type": "ephemeral"}}
                    for i in range(5)
                ],
                "messages": [{"role": "user", "content": "x"}],
            },
            "A maximum of 4 blocks",
        ),
    ],
)
def test_validation_rules(body: dict[str, Any], message: str) -> None:
    with pytest.raises(RequestInvalid, match=None) as info:
        validate_request(body)
    assert message in str(info.value)
