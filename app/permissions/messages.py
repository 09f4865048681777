"""The words of decisions: reasons naming the part and the rule or check, and headless denials."""

from __future__ import annotations

from app.config.loader import SOURCE_LABELS
from app.config.rules import Rule
from tools.decisions import DecisionReason

PLAN_MODE_MESSAGE = (
    "plan mode is on: only reading and searching are allowed until the plan is approved "
    "(present it with ExitPlanMode)"
)


def part_reason(part: str, why: str = "is not allowed by any rule") -> str:
    """`the part "touch x" of this command is not allowed by any rule`."""
    return f'the part "{_short(part)}" of this command {why}'


def source_label(source: str) -> str:
    return SOURCE_LABELS.get(source, source)


def rule_reason(rule: Rule, verb: str, part: str = "") -> DecisionReason:
    where = source_label(rule.source)
    origin = f" ({rule.origin})" if rule.origin and rule.origin != rule.source else ""
    subject = f'the part "{_short(part)}" of this command is' if part else "it is"
    return DecisionReason(
        "rule",
        f"{subject} {verb} by the rule {rule.display()} from {where}{origin}",
        rule=rule.display(),
        source=rule.source,
        part=part,
    )


def headless_denial(tool_name: str, reason: str) -> str:
    """CONTRACT.md's exact text for a call `lathe -p` could not ask about."""
    return (
        f"Permission to use {tool_name} was denied: {reason}. lathe -p cannot ask; "
        "allow it with --allowedTools or settings."
    )


def _short(text: str, limit: int = 200) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
