"""Permission rules in Claude Code's syntax: `Tool`, `Tool(specifier)`, `mcp__server[__tool|__*]`.

A rule that does not parse is reported with its file and source and dropped: it is never widened
into something broader (`Bash()` is not `Bash`). The grammar lives with the settings (below the
permission system) because the settings loader vets every file's rules with it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from tools.base import PermissionKind
from tools.registry import base_tool_classes

RuleBehavior = Literal["allow", "deny", "ask"]

# Names Claude Code's rules use that name no lathe tool, and the rule family each belongs to.
# Every other name's family is the declaration of the tool it names (tools/base.py).
_RULE_ONLY_NAMES: dict[str, PermissionKind] = {
    "NotebookRead": "path_read",
    "LS": "path_read",
    "MultiEdit": "path_write",
    "Task": "generic",
    "Agent": "generic",
}


@cache
def _rule_kinds() -> dict[str, PermissionKind]:
    kinds = dict(_RULE_ONLY_NAMES)
    for cls in base_tool_classes():
        for name in (cls.name, *cls.aliases):
            kinds[name] = cls.permission_kind
    return kinds


@cache
def _canonical_names() -> dict[str, str]:
    names = {"Task": "Agent"}
    for cls in base_tool_classes():
        for alias in cls.aliases:
            names[alias] = cls.name
    return names


def canonical_tool(tool: str) -> str:
    """The tool a rule's name means: an alias (`Task`, `KillShell`) is its tool's name, so
    `Task(Explore)` and a bare `Task` hold for Agent as in Claude Code."""
    return _canonical_names().get(tool, tool)


def tool_and_aliases(tool: str) -> tuple[str, ...]:
    """A tool's name and its older names (Agent, Task): what a hook matcher may name it by."""
    return (tool, *(alias for alias, name in _canonical_names().items() if name == tool))


def rule_kind(tool: str) -> PermissionKind:
    """The rule family of a rule's tool name: the kind its tool declares (generic if unknown)."""
    return _rule_kinds().get(tool, "generic")


def known_tools() -> frozenset[str]:
    """Every tool name a rule may use: lathe's tools, their aliases, Claude Code's rule names."""
    return frozenset(_rule_kinds())


def path_rule_tools(kind: Literal["path_read", "path_write"]) -> frozenset[str]:
    """The names whose rules are path rules of this kind (`Read(...)`, `Grep(...)`, `Edit(...)`)."""
    return frozenset(name for name, k in _rule_kinds().items() if k == kind)


_TOOL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_MCP_RE = re.compile(r"^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_-]+|\*))?$")


class RuleError(ValueError):
    """A rule that does not parse; the message says what is wrong with it."""


@dataclass(frozen=True)
class Rule:
    """One rule with its provenance. `specifier` None means the whole tool."""

    tool: str
    specifier: str | None
    behavior: RuleBehavior
    source: str = "session"
    origin: str = ""
    base_dir: str = ""
    text: str = ""

    def display(self) -> str:
        return self.text or (f"{self.tool}({self.specifier})" if self.specifier else self.tool)

    @property
    def is_mcp(self) -> bool:
        return self.tool.startswith("mcp__")

    def mcp_parts(self) -> tuple[str, str | None]:
        """(server, tool or None for all of its tools)."""
        m = _MCP_RE.match(self.tool)
        if not m:
            return "", None
        tool = m.group(2)
        return m.group(1), None if tool in (None, "*") else tool


def parse_rule(
    text: str,
    behavior: RuleBehavior,
    source: str = "session",
    origin: str = "",
    base_dir: str = "",
) -> Rule:
    """Parse one rule or raise RuleError."""
    if not isinstance(text, str):
        raise RuleError("a rule must be a string")
    raw = text.strip()
    if not raw:
        raise RuleError("empty rule")
    if "(" in raw:
        if not raw.endswith(")"):
            raise RuleError(f"rule {text!r}: missing closing parenthesis")
        tool, _, rest = raw.partition("(")
        spec = _unescape(rest[:-1])
        tool = tool.strip()
        if not spec.strip():
            raise RuleError(f"rule {text!r}: empty specifier (write `{tool}` for the whole tool)")
    else:
        tool, spec = raw, None
    if tool.startswith("mcp__"):
        if not _MCP_RE.match(tool):
            raise RuleError(
                f"rule {text!r}: an MCP rule is mcp__server, mcp__server__tool or mcp__server__*"
            )
        if spec is not None:
            raise RuleError(f"rule {text!r}: MCP rules take no specifier")
        return Rule(tool, None, behavior, source, origin, base_dir, raw)
    if not _TOOL_RE.match(tool):
        raise RuleError(f"rule {text!r}: {tool!r} is not a tool name")
    known_names = known_tools()
    if tool not in known_names:
        for known in sorted(known_names):
            if known.lower() == tool.lower():
                raise RuleError(f"rule {text!r}: unknown tool {tool!r} (did you mean {known}?)")
    if spec is not None and spec.strip() == "*":
        spec = None
    if spec is not None:
        _check_specifier(text, tool, spec)
    # The rule's text keeps the name it was written with (messages quote it as written).
    return Rule(canonical_tool(tool), spec, behavior, source, origin, base_dir, raw)


def _unescape(spec: str) -> str:
    return spec.replace("\\(", "(").replace("\\)", ")")


def _check_specifier(text: str, tool: str, spec: str) -> None:
    kind = rule_kind(tool)
    if kind == "shell":
        if ":*" in spec[:-2]:
            raise RuleError(f"rule {text!r}: `:*` is only allowed at the end of a Bash rule")
        if spec in (":*",):
            raise RuleError(f"rule {text!r}: a prefix rule needs a command before `:*`")
    elif kind == "url":
        if not spec.startswith("domain:"):
            raise RuleError(f"rule {text!r}: {tool} rules are `{tool}(domain:HOST)`")
        host = spec[len("domain:") :].strip()
        if not host or any(c in host for c in "/:@ \\?#") or host.startswith("."):
            raise RuleError(f"rule {text!r}: {host!r} is not a host name")
    elif kind in ("path_read", "path_write") and "\x00" in spec:
        raise RuleError(f"rule {text!r}: NUL in path")


def split_rule_list(values: tuple[str, ...] | list[str]) -> list[str]:
    """`--allowedTools "Bash(git diff:*),Read"` -> two rules; commas inside parentheses stay."""
    out: list[str] = []
    for value in values:
        depth = 0
        current = ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            if ch == "," and depth == 0:
                if current.strip():
                    out.append(current.strip())
                current = ""
                continue
            current += ch
        if current.strip():
            out.append(current.strip())
    return out


def unknown_tool_warning(rule: Rule) -> str:
    """For a deny or ask rule naming no tool lathe knows (`Bsh(rm:*)`): a warning that it stops
    nothing, with the nearest tool name; "" otherwise. Not an error: a rule may name a tool of
    another version or an agent's tool, and it can only make lathe ask more, never less."""
    if rule.behavior == "allow" or rule.tool.startswith("mcp__") or rule.tool in known_tools():
        return ""
    near = difflib.get_close_matches(rule.tool, sorted(known_tools()), n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return (
        f"rule {rule.display()!r}: {rule.tool!r} is no tool lathe knows{hint}, so this "
        f"{rule.behavior} rule stops nothing"
    )
