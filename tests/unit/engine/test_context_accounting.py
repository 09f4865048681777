"""Context windows, thresholds, the token count in use, overflow errors, clearing old results,
the summary's shape: the pure parts of long-session support."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from app.config.loader import CliOverrides, load_settings
from app.config.models import ContextSettings
from app.engine.clear_results import CLEARED_PREFIX, clear_old_results, refetchable
from app.engine.compact import _split_tail, is_context_overflow
from app.engine.compact_fit import fit_for_summary
from app.engine.compact_prompt import SUMMARY_INTRO, extract_summary, summary_prompt
from app.engine.context import (
    ContextConfig,
    ContextState,
    beta_headers,
    compact_threshold,
    context_window,
    estimate_tokens,
)
from app.engine.normalize import normalize_for_api
from app.model.validate import validate_request
from tools.base import ReadOnlyTool
from tools.registry import find_tool, get_all_base_tools

# Which results may be cleared: the built-in tools' own `refetchable` declarations.
BUILTIN = refetchable(lambda name: find_tool(get_all_base_tools(), name))


def tool_use_dict(id_: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id_, "name": name, "input": tool_input}


@pytest.mark.parametrize(
    ("model", "extended", "window"),
    [
        ("claude-sonnet-4-5", False, 200_000),
        ("claude-sonnet-4-5", True, 1_000_000),
        ("claude-sonnet-4-20250514", True, 1_000_000),
        ("claude-sonnet-4-6", True, 1_000_000),
        ("claude-opus-4-6", True, 1_000_000),
        ("claude-haiku-4-5", True, 200_000),
        ("claude-opus-4-1", True, 200_000),
        ("demo", True, 200_000),
    ],
)
def test_window_per_model(model: str, extended: bool, window: int) -> None:
    config = ContextConfig(extended_window=extended)
    assert context_window(model, config) == window
    assert bool(beta_headers(model, config)) == (window == 1_000_000)


def test_window_setting_wins_and_sends_no_beta() -> None:
    config = ContextConfig(window=64_000, extended_window=True)
    assert context_window("claude-sonnet-4-5", config) == 64_000
    assert beta_headers("claude-sonnet-4-5", config) == {}
    assert beta_headers("claude-sonnet-4-5", ContextConfig(extended_window=True)) == {
        "anthropic-beta": "context-1m-2025-08-07"
    }


def test_threshold_reserves_the_output_tokens() -> None:
    default = ContextConfig()
    assert compact_threshold(200_000, 16_000, default) == int(184_000 * 0.9)
    assert compact_threshold(200_000, 16_000, ContextConfig(auto_compact_threshold=0.5)) == 92_000


def test_tokens_in_use_is_the_api_count_plus_an_estimate_of_what_came_after() -> None:
    state = ContextState()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    assert state.tokens_in_use(messages, 5000) == 5000 + estimate_tokens(messages)
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "hello"}]})
    state.record_usage(
        {
            "input_tokens": 100,
            "cache_read_input_tokens": 7000,
            "cache_creation_input_tokens": 50,
            "output_tokens": 20,
        },
        len(messages),
    )
    assert state.tokens_in_use(messages, 5000) == 7170
    added = {"role": "user", "content": "x" * 4000}
    messages.append(added)
    assert state.tokens_in_use(messages, 5000) == 7170 + estimate_tokens([added])
    state.adjust(-1000)
    assert state.tokens_in_use(messages, 5000) == 6170 + estimate_tokens([added])
    state.forget_count()
    assert state.tokens_in_use(messages, 5000) == 5000 + estimate_tokens(messages)


@pytest.mark.parametrize(
    ("message", "overflow"),
    [
        ("API error 400: prompt is too long: 210000 tokens > 200000 maximum", True),
        (
            "API error 400: input length and `max_tokens` exceed context limit: 190000 + 16000 > "
            "200000, decrease input length or `max_tokens` and try again",
            True,
        ),
        ("API error 400: The request exceeds the context window of the model", True),
        ("API error 413: Request exceeds the maximum size", True),
        ("API error 400: messages.1: roles must alternate", False),
        ("API error 529: Overloaded", False),
        (None, False),
    ],
)
def test_overflow_errors_are_recognised(message: str | None, overflow: bool) -> None:
    assert is_context_overflow(message) is overflow


def _read_round(i: int, size: int) -> list[dict[str, Any]]:
    tid = f"t{i}"
    return [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"f{i}.py"}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tid, "content": "x" * size}],
        },
    ]


def _conversation(rounds: int, size: int = 4000) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "read them"}]
    for i in range(rounds):
        out += _read_round(i, size)
    return out


def test_clearing_waits_for_a_batch_then_clears_the_oldest_first() -> None:
    messages = _conversation(4)  # ~1k tokens a result
    assert clear_old_results(messages, 2500, BUILTIN).results == 0  # excess below half the budget
    messages = _conversation(8)
    before = json.dumps(messages[-1])
    cleared = clear_old_results(messages, 2500, BUILTIN)
    assert cleared.results >= 4 and cleared.tokens_saved > 3000
    texts = [m["content"][0]["content"] for m in messages[2::2]]
    assert all(t.startswith(CLEARED_PREFIX) for t in texts[: cleared.results])
    assert not any(t.startswith(CLEARED_PREFIX) for t in texts[cleared.results :])
    assert '"file_path": "f0.py"' in texts[0] and "call Read again" in texts[0]
    assert json.dumps(messages[-1]) == before  # the newest result is never cleared
    # Cleared stays cleared and a second pass changes nothing (a stable prefix).
    snapshot = json.dumps(messages)
    assert (
        clear_old_results(messages, 2500, BUILTIN).results == 0 and json.dumps(messages) == snapshot
    )


def test_only_refetchable_tools_are_cleared() -> None:
    messages = _conversation(6)
    for m in messages[1::2]:
        m["content"][0]["name"] = "Edit"
    assert clear_old_results(messages, 100, BUILTIN, force=True).results == 0


def test_clearing_follows_the_tools_declaration_not_their_names() -> None:
    """A tool that declares itself refetchable is cleared under any name; Read, once it no
    longer declares it, is not (a list of names would get both wrong)."""

    class Fetcher(ReadOnlyTool[Any]):
        name = "Fetcher"
        refetchable = True

    class StickyRead(ReadOnlyTool[Any]):
        name = "Read"

    messages = _conversation(6)
    for m in messages[1::2]:
        m["content"][0]["name"] = "Fetcher"
    assert clear_old_results(
        messages, 100, refetchable({"Fetcher": Fetcher()}.get), force=True
    ).results
    messages = _conversation(6)
    sticky = refetchable({"Read": StickyRead()}.get)
    assert clear_old_results(messages, 100, sticky, force=True).results == 0


def test_fitting_the_summary_request_keeps_a_valid_conversation_and_the_requests() -> None:
    messages = _conversation(10)
    messages[0] = {"role": "user", "content": f"{SUMMARY_INTRO}<summary>EARLIER</summary>"}
    messages[6]["content"].append({"type": "text", "text": "also fix the tests"})
    for room in (20_000, 5000, 1500, 300, 1):
        out = fit_for_summary(messages, room, 40_000, BUILTIN)
        prompt = {"role": "user", "content": "summarise"}
        validate_request(
            {"model": "m", "max_tokens": 10, "messages": normalize_for_api([*out, prompt])}
        )
        text = json.dumps(out)
        # The earlier summary and every request of the user survive whatever the room.
        assert "EARLIER" in text and "also fix the tests" in text, room
        if room >= 1500:
            assert estimate_tokens(out) <= room, room
    # A single huge tool result (of any tool) is cut, not the request around it.
    huge = [
        {"role": "user", "content": "build it"},
        {"role": "assistant", "content": [tool_use_dict("t1", "Mcp", {"q": "x"})]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "y" * 400_000}],
        },
    ]
    out = fit_for_summary(huge, 5000, 40_000, BUILTIN)
    assert estimate_tokens(out) <= 5000 and out[0]["content"] == "build it"


def test_an_unanswered_prompt_stays_out_of_the_summary() -> None:
    messages = [
        *_conversation(2),
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next task"},
    ]
    head, tail = _split_tail(messages)
    assert tail == [messages[-1]] and head == messages[:-1]
    head, tail = _split_tail(_conversation(2))  # tool results are summarised
    assert tail == []


def test_summary_extraction_and_instructions() -> None:
    assert extract_summary("<analysis>scratch</analysis>\n<summary>\nS\n</summary>") == "S"
    assert extract_summary("<analysis>scratch</analysis> plain") == "plain"
    assert extract_summary("<summary>cut off") == "cut off"
    prompt = summary_prompt("focus on the API")
    for section in (
        "Primary Request and Intent",
        "Files and Code Sections",
        "Errors and Fixes",
        "Pending Tasks",
        "Current Work",
        "Next Step",
        "focus on the API",
    ):
        assert section in prompt


def test_context_settings_merge_and_validate(tmp_path, monkeypatch) -> None:
    project = tmp_path / "p"
    (project / ".lathe").mkdir(parents=True)
    (project / ".lathe" / "settings.toml").write_text(
        "[context]\nwindow = 100000\nauto_compact_threshold = 0.8\n"
    )
    (project / ".lathe" / "settings.local.toml").write_text("[context]\nauto_compact = false\n")
    merged = load_settings(project, CliOverrides()).merged()
    config = ContextConfig.from_settings(merged)
    assert (config.window, config.auto_compact_threshold, config.auto_compact) == (
        100_000,
        0.8,
        False,
    )
    assert config.clear_tool_results and config.tool_results_budget == 40_000
    (project / ".lathe" / "settings.local.toml").write_text("[context]\nwindow = 0\nwat = 1\n")
    problems = [str(p) for p in load_settings(project, CliOverrides()).problems]
    assert any("context.window" in p for p in problems) and any(
        "context.wat" in p for p in problems
    )


@pytest.mark.parametrize(
    "given",
    [
        {"window": True},
        {"window": 0},
        {"window": -5},
        {"window": "30000"},
        {"window": 1.5},
        {"extended_window": "yes"},
        {"auto_compact": 1},
        {"auto_compact": "true"},
        {"clear_tool_results": 0},
        {"auto_compact_threshold": 1.5},
        {"auto_compact_threshold": 0},
        {"auto_compact_threshold": -1},
        {"auto_compact_threshold": "x"},
        {"auto_compact_threshold": True},
        {"tool_results_budget": -1},
        {"tool_results_budget": 0},
        {"reread_files_budget": -1},
        {"reread_files_budget": False},
    ],
)
def test_odd_context_values_do_not_validate(given: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ContextSettings.model_validate(given)


def test_good_context_values_validate() -> None:
    good = {"window": 30_000, "auto_compact_threshold": 1, "reread_files_budget": 0}
    config = ContextConfig.from_settings(type("S", (), {"context": ContextSettings(**good)})())
    assert config.window == 30_000 and config.auto_compact_threshold == 1
    assert ContextSettings(auto_compact_threshold=0.5, auto_compact=False).auto_compact is False
