"""A tool's reading of its `Tool(spec)` rules is declared on Tool (review round 3, defect 3).

The decider used to probe `getattr(tool, "rule_specifier_matches", None)`, a hook only Skill
defined and mypy checked on neither side; now Tool declares it (a case-sensitive glob) and the
decider calls it directly.
"""

from __future__ import annotations

from tools.base import Tool
from tools.skill import SkillTool
from tools.web_fetch import WebFetchTool


def test_tool_declares_the_rule_reading_as_a_glob() -> None:
    assert "rule_specifier_matches" in vars(Tool)
    tool = WebFetchTool()
    assert tool.rule_specifier_matches("domain:*.example.com", "domain:a.example.com")
    assert not tool.rule_specifier_matches("domain:*.example.com", "domain:a.example.org")
    assert not tool.rule_specifier_matches("A*", "abc")  # case-sensitive, as fnmatchcase


def test_skill_keeps_claude_codes_prefix_form() -> None:
    skill = SkillTool()
    assert skill.rule_specifier_matches("ts:*", "tsk")
    assert not skill.rule_specifier_matches("ts*x", "tsx-no")
