"""dontAsk mode for every rule family, not only Bash: what would ask is denied (saying why and
that dontAsk denied it), what a rule or the working folders allow still runs, denies stay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.permissions.helpers import DictTool, context, decide
from tools.base import ToolContext
from tools.decisions import DecisionReason, PermissionDecision

DONT_ASK = "(dontAsk mode denies what is not pre-allowed)"


@pytest.mark.parametrize(
    ("tool", "input"),
    [
        ("Write", {"file_path": "src/new.py", "content": "x"}),  # inside: default mode asks
        ("Edit", {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
        ("Read", {"file_path": "/etc/hostname"}),  # outside the working folders
        ("Grep", {"pattern": "x", "path": "/usr/share"}),
        ("WebFetch", {"url": "https://example.com/", "prompt": "p"}),
        ("TodoWrite", {"todos": []}),  # generic, declared not read-only here
        ("mcp__srv__write", {}),
    ],
)
def test_what_would_ask_is_denied(tmp_path: Path, tool: str, input: dict[str, Any]) -> None:
    asking = decide(context(tmp_path), DictTool(tool, read_only=False), input)
    assert asking.behavior == "ask", asking
    denied = decide(context(tmp_path, mode="dontAsk"), DictTool(tool, read_only=False), input)
    assert denied.behavior == "deny", denied
    assert denied.message == f"{asking.message} {DONT_ASK}"
    assert denied.reason == asking.reason  # the same reason: what would have asked


@pytest.mark.parametrize(
    ("allow", "tool", "input"),
    [
        ((), "Read", {"file_path": "src/main.py"}),  # reading inside the working folders
        (("Edit(/src/**)",), "Write", {"file_path": "src/new.py", "content": "x"}),
        (
            ("WebFetch(domain:example.com)",),
            "WebFetch",
            {"url": "https://example.com/", "prompt": "p"},
        ),
        (("mcp__srv",), "mcp__srv__write", {}),
    ],
)
def test_what_is_pre_allowed_still_runs(
    tmp_path: Path, allow: tuple[str, ...], tool: str, input: dict[str, Any]
) -> None:
    pc = context(tmp_path, allow=allow, mode="dontAsk")
    assert decide(pc, DictTool(tool, read_only=False), input).behavior == "allow"


def test_a_deny_rule_still_denies_as_a_rule(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Read(/src/**)",), allow=("Read",), mode="dontAsk")
    d = decide(pc, "Read", {"file_path": "src/main.py"})
    assert d.behavior == "deny" and d.reason is not None and d.reason.kind == "rule"


def test_a_tools_own_ask_is_denied(tmp_path: Path) -> None:
    own = PermissionDecision.ask("TodoWrite wants a word", DecisionReason("tool", "its own ask"))
    pc = context(tmp_path, allow=("TodoWrite",), mode="dontAsk")
    d = decide(pc, DictTool("TodoWrite", own=own), {"todos": []})
    assert d.behavior == "deny" and d.message == "TodoWrite wants a word"
    assert (
        decide(
            context(tmp_path / "b", allow=("TodoWrite",)),
            DictTool("TodoWrite", own=own),
            {"todos": []},
        ).behavior
        == "ask"
    )


def test_a_host_that_cannot_be_normalised_is_denied(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("WebFetch(domain:evil.com)",), mode="dontAsk")
    d = decide(pc, "WebFetch", {"url": "https://exa mple.com/", "prompt": "p"})
    assert d.behavior == "deny" and d.reason is not None and "normalised" in d.reason.text


async def test_a_hooks_allow_answers_the_question_dontask_would_deny(tmp_path: Path) -> None:
    from app.permissions import RuleDecider

    pc = context(tmp_path, mode="dontAsk")
    ctx = ToolContext(
        cwd=pc.project_dir, project_dir=pc.project_dir, working_dirs=(pc.project_dir,)
    )
    tool = DictTool("Write")
    input = {"file_path": str(Path(pc.project_dir) / "src" / "x.py"), "content": "x"}
    decider = RuleDecider(pc)
    assert (await decider.decide(tool, input, input, ctx)).behavior == "deny"
    assert (await decider.decide_as_asking(tool, input, input, ctx)).behavior == "ask"
