"""A server's name may itself hold `__` (`corp__tools`): a deny or ask rule naming the whole server
must cover its tools, however the tool name `mcp__corp__tools__x` is split (attack round 3 on the
protocol front ends found `mcp__a__b` covering nothing of server `a__b`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.permissions.helpers import context, decide


@pytest.mark.parametrize("rule", ["mcp__a__b", "mcp__a__b__*", "mcp__a", "mcp__a__b__mark"])
def test_a_deny_naming_a_server_with_underscores_covers_its_tools(
    tmp_path: Path, rule: str
) -> None:
    pc = context(tmp_path, deny=(rule,), mode="bypassPermissions")
    assert decide(pc, "mcp__a__b__mark", {}).behavior == "deny"


@pytest.mark.parametrize("rule", ["mcp__a__b", "mcp__a__b__*"])
def test_an_ask_rule_too(tmp_path: Path, rule: str) -> None:
    pc = context(tmp_path, ask=(rule,), mode="bypassPermissions")
    assert decide(pc, "mcp__a__b__mark", {}).behavior == "ask"


def test_a_deny_does_not_reach_a_server_whose_name_only_starts_the_same(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("mcp__a__b",))
    assert decide(pc, "mcp__a__bc__mark", {}).behavior != "deny"
    pc = context(tmp_path, deny=("mcp__a",), allow=("mcp__ab",))
    assert decide(pc, "mcp__ab__t", {}).behavior == "allow"


def test_an_allow_stays_strict_where_the_name_is_ambiguous(tmp_path: Path) -> None:
    # `mcp__a__b` may be tool b of server a: as an allow it must not grant server a__b's tools.
    pc = context(tmp_path, allow=("mcp__a__b",))
    assert decide(pc, "mcp__a__b__mark", {}).behavior != "allow"
    assert decide(pc, "mcp__a__b", {}).behavior == "allow"
