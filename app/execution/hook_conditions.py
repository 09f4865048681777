"""A hook handler's `if`: does its permission rule match this tool call?

Claude Code (2.1.85 and later) reads a handler's `"if": "Bash(git commit:*)"` as a permission
rule: the hook process starts only for the calls the rule matches (its docs; 2.1.332 measured in
ext-r3 F6: `if: Bash(git commit:*)` does not run for `echo hi`, `if: Bash(echo:*)` does). A
compound command matches when any of its parts does (Claude Code 2.1.89 and later), so a guard
written for `git push` still sees `ls && git push`.

The rule is matched as a deny rule would be (every reading of every part, commands hidden in
`sh -c` and substitutions included): a hook is far more often a guard than a grant, and for a
guard running too often is the safe side. A command the shell parser cannot see into matches.
Lives here, above both the hooks and the permission layer, because it uses the permission
layer's matchers; the composition root hands it to the hook runner.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from typing import Any

from app.config.rules import RuleError, canonical_tool, parse_rule, rule_kind
from app.hooks.calls import HookToolCall
from app.permissions.matching import (
    bash_matches,
    bash_pattern,
    canonical,
    compile_path_rule,
    compiled_matches,
    domain_matches,
    mcp_matches,
    url_hosts,
)
from tools.shell import analyze, deny_forms, inner_code

_PATH_KEYS = ("file_path", "notebook_path", "path")
_MAX_DEPTH = 4


def condition_matcher(project_dir: str, home: str | None = None) -> Any:
    """The function the hook runner calls with (rule text, call)."""
    home_dir = home if home is not None else os.path.expanduser("~")

    def holds(condition: str, call: HookToolCall) -> bool:
        return condition_holds(condition, call, project_dir, home_dir)

    return holds


def condition_holds(condition: str, call: HookToolCall, project_dir: str, home: str) -> bool:
    try:
        rule = parse_rule(condition, "deny")
    except RuleError:
        return False  # the settings loader already refused such a handler
    if rule.is_mcp:
        return mcp_matches(rule, call.tool_name)
    if rule.tool != canonical_tool(call.tool_name):
        return False
    if rule.specifier is None:
        return True
    kind = rule_kind(rule.tool)
    tool_input = call.tool_input
    if kind == "shell":
        command = tool_input.get("command")
        return isinstance(command, str) and _command_matches(rule.specifier, command, 0)
    if kind in ("path_read", "path_write"):
        compiled = compile_path_rule(rule, project_dir, home)
        return any(
            compiled_matches(compiled, os.path.normpath(os.path.join(project_dir, value)))
            for value in _strings(tool_input, _PATH_KEYS)
        )
    if kind == "url":
        url = tool_input.get("url")
        return isinstance(url, str) and any(
            domain_matches(rule.specifier, host) for host in url_hosts(url)
        )
    # Other tools (`Skill(name)`, `Agent(Explore)`): the specifier as a glob over the input's
    # text values.
    return any(
        fnmatch.fnmatchcase(value, rule.specifier)
        for value in tool_input.values()
        if isinstance(value, str)
    )


def _strings(tool_input: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    return [v for k in keys if isinstance(v := tool_input.get(k), str) and v]


def _command_matches(spec: str, command: str, depth: int) -> bool:
    try:
        analysis = analyze(command)
    except ValueError:  # the strict lexer gives up on an unclosed quote
        return True
    if not analysis.analysable:
        return True  # the parser cannot see every part: the guard runs
    pattern = bash_pattern(spec)
    for part in (*analysis.parts, *analysis.nested):
        for words in deny_forms(part.words) if part.words else []:
            if bash_matches(pattern, words, canonical(words)):
                return True
            code = inner_code(words)
            if code is not None and depth < _MAX_DEPTH and _command_matches(spec, code, depth + 1):
                return True
    return False
