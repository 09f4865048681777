"""The registry: frozen order, simple mode, blanket denies, is_enabled once, pool assembly."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fake_tools import SafeSleep
from tools import registry
from tools.base import Tool

FROZEN_ORDER = [
    "Bash",
    "BashOutput",
    "TaskStop",
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "WebFetch",
    "TodoWrite",
    "ToolSearch",
    "NotebookEdit",
    "AskUserQuestion",
    "ExitPlanMode",
    "WebSearch",
    "Skill",
    "Agent",
]


def make(name: str, aliases: tuple[str, ...] = (), enabled: bool = True) -> Tool[Any]:
    counter = {"n": 0}

    class T(SafeSleep):
        pass

    T.name = name
    T.aliases = aliases

    def is_enabled(self: Any) -> bool:
        counter["n"] += 1
        return enabled

    T.is_enabled = is_enabled  # type: ignore[method-assign]
    tool = T()
    tool.enabled_calls = counter  # type: ignore[attr-defined]
    return tool


class DenyNames:
    def __init__(self, *names: str) -> None:
        self.names = set(names)

    def blanket_denied(self, tool_name: str) -> bool:
        return tool_name in self.names or any(
            n.endswith("__") and tool_name.startswith(n) for n in self.names
        )


def test_base_tools_frozen_order():
    assert [t.name for t in registry.get_all_base_tools()] == FROZEN_ORDER


def test_every_base_tool_has_a_description_and_schema():
    for tool in registry.get_all_base_tools():
        definition = tool.api_definition()
        assert len(definition["description"]) > 80, tool.name
        assert definition["input_schema"]["type"] == "object", tool.name


def test_simple_mode_keeps_bash_read_edit(monkeypatch):
    base = [make(n) for n in FROZEN_ORDER]
    assert [t.name for t in registry.get_tools(simple=True, base_tools=base)] == [
        "Bash",
        "Read",
        "Edit",
    ]
    monkeypatch.setenv("LATHE_SIMPLE", "1")
    assert [t.name for t in registry.get_tools(base_tools=base)] == ["Bash", "Read", "Edit"]
    monkeypatch.setenv("LATHE_SIMPLE", "0")
    assert len(registry.get_tools(base_tools=base)) == len(FROZEN_ORDER)


def test_blanket_deny_removes_tool_before_the_model_sees_it():
    base = [make(n) for n in FROZEN_ORDER]
    names = [
        t.name
        for t in registry.get_tools(DenyNames("WebFetch", "Bash"), simple=False, base_tools=base)
    ]
    assert "WebFetch" not in names and "Bash" not in names and "Read" in names


def test_is_enabled_evaluated_once_per_tool():
    base = [make("A"), make("B", enabled=False), make("C")]
    tools = registry.get_tools(simple=False, base_tools=base)
    assert [t.name for t in tools] == ["A", "C"]
    assert [t.enabled_calls["n"] for t in base] == [1, 1, 1]  # type: ignore[attr-defined]


def test_pool_builtin_prefix_mcp_suffix_and_breakpoint():
    builtins = [make("Read"), make("Bash"), make("Edit")]
    mcp = [make("mcp__z__b"), make("mcp__a__x"), make("Bash")]  # an MCP tool may not shadow Bash
    pool = registry.assemble_tool_pool(builtins, mcp)
    assert pool.names == ["Bash", "Edit", "Read", "mcp__a__x", "mcp__z__b"]
    assert pool.builtin_breakpoint == 2
    assert pool.find("Bash") is builtins[1]


def test_pool_prefix_is_stable_when_mcp_servers_change():
    builtins = [make("Read"), make("Bash")]
    one = registry.assemble_tool_pool(builtins, [make("mcp__s__t")])
    two = registry.assemble_tool_pool(
        builtins, [make("mcp__a__t"), make("mcp__s__t"), make("mcp__b__q")]
    )
    assert one.names[: one.builtin_breakpoint + 1] == two.names[: two.builtin_breakpoint + 1]


def test_pool_applies_mcp_server_denies():
    pool = registry.assemble_tool_pool(
        [make("Read")], [make("mcp__evil__x"), make("mcp__good__y")], DenyNames("mcp__evil__")
    )
    assert pool.names == ["Read", "mcp__good__y"]


def test_alias_lookup():
    tools = [make("TaskStop", aliases=("KillShell",)), make("Read")]
    assert registry.find_tool(tools, "KillShell") is tools[0]
    assert registry.find_tool(tools, "TaskStop") is tools[0]
    assert registry.find_tool(tools, "Nope") is None


@pytest.mark.parametrize("name", ["Read", "Bash"])
def test_empty_pool_breakpoint(name):
    assert registry.assemble_tool_pool([], [make(f"mcp__s__{name}")]).builtin_breakpoint == -1


SAMPLE_INPUTS = {
    "Read": {"file_path": "/p/a.py"},
    "Glob": {"pattern": "*.py"},
    "Grep": {"pattern": "x"},
    "BashOutput": {"bash_id": "b1"},
    "WebFetch": {"url": "https://example.com", "prompt": "p"},
    "ToolSearch": {"query": "x"},
    "Write": {"file_path": "/p/a.py", "content": ""},
    "Edit": {"file_path": "/p/a.py", "old_string": "a", "new_string": "b"},
    "TaskStop": {"shell_id": "b1"},
}


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("Read", True),
        ("Glob", True),
        ("Grep", True),
        ("BashOutput", True),
        ("WebFetch", True),
        ("ToolSearch", True),
        ("Write", False),
        ("Edit", False),
        ("TaskStop", False),
    ],
)
def test_base_tool_declarations(name: str, safe: bool) -> None:
    tool = registry.find_tool(registry.get_all_base_tools(), name)
    assert tool is not None
    parsed = tool.parse_input(SAMPLE_INPUTS[name])
    assert tool.is_read_only(parsed) is safe
    assert tool.is_concurrency_safe(parsed) is safe
