"""app/engine/choices.py on the real decider and real tools: a rule is offered only when the
decider, asked again with it, approves this very call; an edit's file rule is `./` inside the
project (by folder, not by string prefix) and `//` outside."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.engine.choices import Offer, file_rule, offer_for
from app.execution.interfaces import PermissionPrompt
from app.permissions import PermissionContext, RuleDecider
from tests.unit.permissions.helpers import context
from tools.base import Tool, ToolContext
from tools.bash import BashTool
from tools.decisions import DecisionReason
from tools.edit import EditTool


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("/proj/src/a.py", "Edit(./src/a.py)"),
        ("/proj-other/x.py", "Edit(//proj-other/x.py)"),  # a sibling folder is not inside
        ("/elsewhere/b.py", "Edit(//elsewhere/b.py)"),
        ("/proj/src/*.py", ""),  # a name a rule would read as a pattern: no rule
        ("relative.py", ""),
        ("", ""),
    ],
)
def test_the_file_rule_for_one_file(path: str, rule: str) -> None:
    assert file_rule("Edit", path, "/proj") == rule


@pytest.mark.parametrize("char", list("*?[]{}\\"))
def test_every_pattern_character_keeps_a_file_rule_from_being_offered(
    char: str, tmp_path: Path
) -> None:
    """A rule reads each of these as a pattern or an escape (`*`, `?`, a `[...]` class, a
    `{a,b}` alternative, a `\\` escape): a rule written from such a name could approve other
    files, or not this one. So none is offered, by file_rule nor by the real offer; the call can
    still be allowed once (and acceptEdits still offered: it names no file)."""
    assert file_rule("Edit", f"/proj/src/a{char}b.py", "/proj") == ""
    assert file_rule("Edit", f"/elsewhere/a{char}b.py", "/proj") == ""
    pc = context(tmp_path)
    target = str(Path(pc.project_dir) / "src" / f"a{char}b.py")
    offer = _offer(pc, EditTool(), {"file_path": target, "old_string": "1", "new_string": "2"})
    assert offer.session_rules == () and offer.always_rules == ()
    assert offer.accept_edits


def _offer(pc: PermissionContext, tool: Tool[Any], raw: dict[str, Any], *suggested: str) -> Offer:
    ctx = ToolContext(
        cwd=pc.project_dir, project_dir=pc.project_dir, working_dirs=(pc.project_dir,)
    )
    prompt = PermissionPrompt(
        tool=tool,
        tool_name=tool.name,
        tool_use_id="t1",
        input=raw,
        message="needs permission",
        reason=DecisionReason("mode", "needs approval"),
        suggestions=suggested,
        parsed=tool.parse_input(raw),
        context=ctx,
    )
    return asyncio.run(offer_for(prompt, RuleDecider(pc)))


def test_an_edit_in_the_project_offers_its_file_and_accept_edits(tmp_path: Path) -> None:
    pc = context(tmp_path)
    target = str(Path(pc.project_dir) / "src" / "main.py")
    raw = {"file_path": target, "old_string": "1", "new_string": "2"}
    offer = _offer(pc, EditTool(), raw)
    assert offer == Offer(("Edit(./src/main.py)",), True, ("Edit(./src/main.py)",))


def test_an_edit_outside_the_folders_offers_no_accept_edits(tmp_path: Path) -> None:
    pc = context(tmp_path)
    outside = tmp_path / "proj-other"
    outside.mkdir()
    (outside / "x.py").write_text("1\n")
    raw = {"file_path": str(outside / "x.py"), "old_string": "1", "new_string": "2"}
    offer = _offer(pc, EditTool(), raw)
    assert not offer.accept_edits  # acceptEdits covers the working folders only
    assert all(r.startswith("Edit(//") for r in offer.always_rules)


def test_a_suggestion_is_offered_only_when_it_approves_the_call(tmp_path: Path) -> None:
    pc = context(tmp_path)
    plain = _offer(pc, BashTool(), {"command": "make build"}, "Bash(make build:*)")
    assert plain == Offer(always_rules=("Bash(make build:*)",))
    # An env prefix the prefix rule does not cover: the rule would not approve it, so none.
    env = _offer(pc, BashTool(), {"command": "FOO=1 make build"}, "Bash(make build:*)")
    assert env == Offer()
    # A suggestion that does not parse is not offered either.
    assert _offer(pc, BashTool(), {"command": "make build"}, "Bash(((") == Offer()
