"""Policy reads what a tool declares on tools/base.py's Tool, never its name: a tool named
anything that declares the Agent tool's deny label, Skill's plan-mode use or extra subject names
is judged as they are (a name switch in the decider would fail these)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.permissions import PLAN_MODE_MESSAGE
from tests.unit.permissions.helpers import DictTool, context, decide
from tools.agent import AgentTool
from tools.base import Tool, ToolContext
from tools.skill import SkillTool


class Dispatch(DictTool):
    """Not named Agent or Skill; declares what they do."""

    denied_subject_label = "Crew"
    usable_in_plan_mode = True

    def __init__(self) -> None:
        super().__init__("Dispatch", read_only=False)

    def permission_subject(self, input: dict[str, Any]) -> str | None:
        return str(input.get("crew", "")) or None

    def permission_subject_names(
        self, input: dict[str, Any], context: ToolContext
    ) -> tuple[str, ...]:
        return ("alias-" + str(input.get("crew", "")),)


def test_a_declared_deny_label_gives_the_subject_deny_text_whatever_the_name(
    tmp_path: Path,
) -> None:
    pc = context(tmp_path, deny=("Dispatch(red)",))
    d = decide(pc, Dispatch(), {"crew": "red"})
    assert d.behavior == "deny"
    assert d.message.startswith("Crew 'red' has been denied by permission rule 'Dispatch(red)'")


def test_a_rule_on_a_declared_other_name_holds(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Dispatch(alias-blue)",))
    assert decide(pc, Dispatch(), {"crew": "blue"}).behavior == "deny"


def test_declared_plan_mode_use_is_read_and_undeclared_is_refused(tmp_path: Path) -> None:
    plan = context(tmp_path, mode="plan")
    assert decide(plan, Dispatch(), {"crew": "red"}).message != PLAN_MODE_MESSAGE
    plain = DictTool("Dispatch2", read_only=False)
    assert decide(plan, plain, {}).message == PLAN_MODE_MESSAGE


def test_lathe_tools_declare_what_policy_and_the_engine_read() -> None:
    assert AgentTool.denied_subject_label == "Agent type"
    assert SkillTool.usable_in_plan_mode and SkillTool.offers_skills
    assert not Tool.offers_skills and not Tool.usable_in_plan_mode
    assert Tool.denied_subject_label is None
