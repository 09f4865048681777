"""The immutable permission context: every rule with its source, the mode, the working folders.

Decisions are made against one snapshot; to change anything, build a new context (`with_*`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from app.config.loader import SOURCE_LABELS, SettingsProblem
from app.config.models import PermissionMode
from app.config.rules import Rule, rule_kind
from app.permissions.matching import bash_pattern, mcp_matches


@dataclass(frozen=True)
class BashRuleIndex:
    """Prefix rules by their first word, so one call is not matched against every rule."""

    rules: tuple[Rule, ...]
    by_word: Mapping[str, tuple[Rule, ...]]
    other: tuple[Rule, ...]

    @classmethod
    def build(cls, rules: tuple[Rule, ...]) -> BashRuleIndex:
        by_word: dict[str, list[Rule]] = {}
        other: list[Rule] = []
        for rule in rules:
            pattern = bash_pattern(rule.specifier)
            if pattern.kind == "prefix" and pattern.prefix:
                by_word.setdefault(pattern.prefix[0], []).append(rule)
            else:
                other.append(rule)
        return cls(rules, {k: tuple(v) for k, v in by_word.items()}, tuple(other))

    def for_words(self, words: tuple[str, ...]) -> tuple[Rule, ...]:
        if not words:
            return self.other
        return self.by_word.get(words[0], ()) + self.other


@dataclass(frozen=True)
class PermissionContext:
    mode: PermissionMode = "default"
    # The mode to return to when plan mode ends.
    pre_plan_mode: PermissionMode | None = None
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    project_dir: str = ""
    working_dirs: tuple[str, ...] = ()
    home: str = ""
    trusted: bool = True
    # Headless in a folder the trust records do not name: the checked-in project files' allow
    # rules were ignored, and the project's commands' and skills' allowed-tools are too.
    confined: bool = False
    bypass_disabled: bool = False
    problems: tuple[SettingsProblem, ...] = ()
    local_settings_path: str = ""
    # When the session started (ns): project script files changed after it (scriptfiles.py).
    session_started_ns: int = 0
    # A subagent's own `memory:` folder (app/agents/memory.py): Write and Edit below it go
    # through without asking, its `.claude/` notwithstanding (paths.memory_write_ok).
    memory_dirs: tuple[str, ...] = ()

    # -- questions ------------------------------------------------------------------------------

    def bash_rules(self, behavior: str) -> BashRuleIndex:
        """Bash rules of one behavior, indexed by command name (built once per context)."""
        cache: dict[str, BashRuleIndex] | None = self.__dict__.get("_bash_index")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_bash_index", cache)
        index = cache.get(behavior)
        if index is None:
            rules = {"allow": self.allow, "deny": self.deny, "ask": self.ask}[behavior]
            index = BashRuleIndex.build(tuple(r for r in rules if rule_kind(r.tool) == "shell"))
            cache[behavior] = index
        return index

    def blanket_denied(self, tool_name: str) -> bool:
        """A deny rule without specifier names this tool (or its whole MCP server)."""
        for rule in self.deny:
            if rule.is_mcp:
                if mcp_matches(rule, tool_name):
                    return True
            elif rule.specifier is None and rule.tool == tool_name:
                return True
        return False

    def rules(self) -> tuple[Rule, ...]:
        return self.deny + self.ask + self.allow

    def rules_by_source(self) -> dict[str, list[Rule]]:
        """For `/permissions`: the rules grouped by where they came from."""
        out: dict[str, list[Rule]] = {}
        for rule in self.rules():
            out.setdefault(SOURCE_LABELS.get(rule.source, rule.source), []).append(rule)
        return out

    # -- new contexts ---------------------------------------------------------------------------

    def with_rules(self, rules: Iterable[Rule]) -> PermissionContext:
        allow, deny, ask = list(self.allow), list(self.deny), list(self.ask)
        for rule in rules:
            target = {"allow": allow, "deny": deny, "ask": ask}[rule.behavior]
            if not any(r.text == rule.text and r.source == rule.source for r in target):
                target.append(rule)
        return replace(self, allow=tuple(allow), deny=tuple(deny), ask=tuple(ask))

    def without_rule(self, rule: Rule) -> PermissionContext:
        return replace(
            self,
            allow=tuple(r for r in self.allow if r != rule),
            deny=tuple(r for r in self.deny if r != rule),
            ask=tuple(r for r in self.ask if r != rule),
        )

    def with_mode(self, mode: PermissionMode) -> PermissionContext:
        if mode == "bypassPermissions" and self.bypass_disabled:
            return self
        if mode == "plan" and self.mode != "plan":
            return replace(self, mode=mode, pre_plan_mode=self.mode)
        if mode != "plan":
            return replace(self, mode=mode, pre_plan_mode=None)
        return self
