"""The SDK's one-shot `query()` against lathe: message parsing, the result's fields, the quick start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.sdk.conftest import ROOT, options
from tests.fakeapi.server import FakeAPI


async def collect(prompt: Any, opts: Any) -> list[Any]:
    from claude_agent_sdk import query

    return [m async for m in query(prompt=prompt, options=opts)]


async def test_query_runs_a_tool_and_every_line_parses(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        ResultMessage,
        SystemMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    fake_api.enqueue(
        turn_of([tool_use_block("Read", {"file_path": str(repo / "a.txt")}, "toolu_r1")]),
        text_turn("It says alpha."),
    )
    messages = await collect("read a.txt", options(lathe_cli, repo, allowed_tools=["Read"]))
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    for key in (
        "apiKeySource",
        "claude_code_version",
        "slash_commands",
        "agents",
        "skills",
        "output_style",
    ):
        assert key in init.data, key
    assert "Read" in init.data["tools"]
    uses = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content]
    assert any(isinstance(b, ToolUseBlock) and b.id == "toolu_r1" for b in uses)
    assert any(isinstance(b, TextBlock) and b.text == "It says alpha." for b in uses)
    results = [b for m in messages if isinstance(m, UserMessage) for b in m.content]
    assert isinstance(results[0], ToolResultBlock) and "alpha" in str(results[0].content)
    assert all(m.uuid for m in messages if isinstance(m, AssistantMessage | UserMessage))
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and not result.is_error
    assert result.result == "It says alpha." and result.num_turns == 2
    assert result.stop_reason == "end_turn" and result.terminal_reason == "completed"
    assert isinstance(result.duration_api_ms, int) and result.duration_api_ms >= 0
    assert result.model_usage and "claude-sonnet-4-5" in result.model_usage
    assert result.session_id == init.data["session_id"]


async def test_quick_start_cases(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    """The SDK's examples/quick_start.py, its three cases with their options and prompts; only
    cli_path (and the folder) added."""
    from claude_agent_sdk import AssistantMessage, ResultMessage, TextBlock

    fake_api.enqueue(text_turn("2 + 2 = 4"))
    basic = await collect("What is 2 + 2?", options(lathe_cli, repo))
    texts = [
        b.text
        for m in basic
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, TextBlock)
    ]
    assert texts == ["2 + 2 = 4"]

    fake_api.enqueue(text_turn("Python is a programming language."))
    simple = options(
        lathe_cli,
        repo,
        system_prompt="You are a helpful assistant that explains things simply.",
        max_turns=1,
    )
    answer = await collect("Explain what Python is in one sentence.", simple)
    assert isinstance(answer[-1], ResultMessage) and answer[-1].subtype == "success"
    system = fake_api.bodies()[-1]["system"]
    assert "explains things simply" in system[0]["text"]

    fake_api.enqueue(
        turn_of(
            [
                tool_use_block(
                    "Write", {"file_path": str(repo / "hello.txt"), "content": "Hello, World!"}
                )
            ]
        ),
        text_turn("Created hello.txt."),
    )
    tools = options(
        lathe_cli,
        repo,
        allowed_tools=["Read", "Write"],
        system_prompt="You are a helpful file assistant.",
    )
    made = await collect("Create a file called hello.txt with 'Hello, World!' in it", tools)
    assert (repo / "hello.txt").read_text(encoding="utf-8") == "Hello, World!"
    last = made[-1]
    assert (
        isinstance(last, ResultMessage)
        and last.total_cost_usd is not None
        and last.total_cost_usd > 0
    )


async def test_partial_messages_are_stream_events(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import StreamEvent

    fake_api.enqueue(text_turn("streamed words here"))
    messages = await collect("hi", options(lathe_cli, repo, include_partial_messages=True))
    events = [m for m in messages if isinstance(m, StreamEvent)]
    kinds = [e.event["type"] for e in events]
    assert (
        kinds[0] == "message_start"
        and "content_block_delta" in kinds
        and kinds[-1] == "message_stop"
    )
    assert all(e.uuid and e.session_id for e in events)


def test_unknown_flag_is_an_error_naming_it(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "app", "--output-format", "stream-json", "--no-such-flag", "x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)},
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2
    assert "--no-such-flag" in run.stderr
    assert run.stdout == ""


async def test_json_schema_answer_is_the_structured_output(
    fake_api: FakeAPI, sdk_env: dict[str, str], lathe_cli: str, repo: Path
) -> None:
    from claude_agent_sdk import ResultMessage

    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    fake_api.enqueue(
        turn_of([tool_use_block("StructuredOutput", {"answer": "four"}, "toolu_s0")]),
        turn_of([tool_use_block("StructuredOutput", {"answer": 4}, "toolu_s1")]),
        text_turn("Done."),
    )
    opts = options(lathe_cli, repo, output_format={"type": "json_schema", "schema": schema})
    messages = await collect("What is 2 + 2?", opts)
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.structured_output == {"answer": 4}
    first = fake_api.bodies()[0]
    offered = {t["name"]: t for t in first["tools"]}
    assert offered["StructuredOutput"]["input_schema"] == schema
    # The answer that broke the schema was a tool error the model could correct.
    second = fake_api.bodies()[1]["messages"][-1]["content"][0]
    assert second["tool_use_id"] == "toolu_s0" and second["is_error"]
