"""Settings fail closed: what a broken file still contributes, and finding the broken ones.

A file is broken when it cannot be read, parsed or validated, or when one of its rules or hooks
does not parse. A broken file must never make lathe looser than the user meant: its deny and ask
rules that can still be read keep applying (a typo next to `deny = ["Bash"]` must not let Bash
run), while nothing that widens or runs code comes from it (allow rules, hooks, env, MCP servers,
a permissive mode). `lathe -p` refuses to start with a broken file; the TUI asks the user first.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app import jsonlimits
from app.config.hooks import HookSource, parse_hook_sources
from app.config.loader import LoadedSettings, LoadedSource, SettingsProblem
from app.config.models import PermissionsSettings, Settings
from app.config.rules import RuleError, parse_rule, split_rule_list, unknown_tool_warning

# Modes a broken file may still set: each only narrows what runs without asking.
_NARROWING_MODES = ("default", "plan")


def salvage(data: Any) -> Settings:
    """The deny and ask rules (and narrowing knobs) of a file's raw data that failed validation.

    `deny = "Bash"` (a string, not a list) is read as the one rule it names: reading it as
    nothing would let Bash run.
    """
    perms = data.get("permissions") if isinstance(data, Mapping) else None
    keep: dict[str, Any] = {}
    if isinstance(perms, Mapping):
        for key in ("deny", "ask"):
            value = perms.get(key)
            if isinstance(value, str):
                keep[key] = [value]
            elif isinstance(value, list):
                keep[key] = [item for item in value if isinstance(item, str)]
        mode = perms.get("default_mode", perms.get("defaultMode"))
        if mode in _NARROWING_MODES:
            keep["default_mode"] = mode
        off = perms.get("disable_bypass_mode", perms.get("disableBypassPermissionsMode"))
        if off is True or off == "disable":
            keep["disable_bypass_mode"] = True
    return Settings(permissions=PermissionsSettings.model_validate(keep))


def salvage_toml_prefix(text: str, error_line: int | None) -> Settings | None:
    """A TOML file with a syntax error: the deny and ask rules of the longest run of lines before
    the error that parses on its own. A TOML value never runs past its line unless a bracket or
    quote is open, and a cut one does not parse, so such a prefix means what the file says."""
    if not error_line or error_line <= 1:
        return None
    lines = text.splitlines()
    for end in range(min(error_line - 1, len(lines)), 0, -1):
        try:
            data = jsonlimits.toml_loads("\n".join(lines[:end]), "settings")
        except (tomllib.TOMLDecodeError, jsonlimits.JsonLimitError):
            continue
        kept = salvage(data)
        return kept if kept.permissions.deny or kept.permissions.ask else None
    return None


def vet_sources(loaded: LoadedSettings) -> LoadedSettings:
    """Parse every file's rules and hooks; a file with an error becomes broken (its settings are
    cut down to the deny and ask rules that parse). Returns the settings with all problems."""
    problems = list(loaded.problems)
    sources: list[LoadedSource] = []
    problems.extend(_flag_problems(loaded))
    for src in loaded.sources:
        if src.settings is None or src.name == "cli":
            sources.append(src)
            continue
        found = _rule_problems(src) + _hook_problems(src)
        problems.extend(found)
        if src.broken or any(p.severity == "error" for p in found):
            src = replace(src, settings=_cut_down(src.settings), broken=True)
        sources.append(src)
    return replace(loaded, sources=tuple(sources), problems=tuple(problems))


def _flag_problems(loaded: LoadedSettings) -> list[SettingsProblem]:
    """Rules given on the command line that do not parse (as app.permissions.load words them)."""
    out: list[SettingsProblem] = []
    flags = (
        ("--allowedTools", "allow", loaded.cli.allowed_tools),
        ("--disallowedTools", "deny", loaded.cli.disallowed_tools),
    )
    for flag, behavior, values in flags:
        for text in split_rule_list(values):
            try:
                rule = parse_rule(text, behavior, "cli", flag)  # type: ignore[arg-type]
            except RuleError as exc:
                out.append(SettingsProblem(flag, str(exc), source="cli"))
                continue
            warning = unknown_tool_warning(rule)
            if warning:
                out.append(SettingsProblem(flag, warning, source="cli", severity="warning"))
    return out


def _cut_down(settings: Settings) -> Settings:
    perms = settings.permissions
    keep: dict[str, Any] = {
        "deny": [r for r in perms.deny if _parses(r, "deny")],
        "ask": [r for r in perms.ask if _parses(r, "ask")],
        "disable_bypass_mode": perms.disable_bypass_mode,
    }
    if perms.default_mode in _NARROWING_MODES:
        keep["default_mode"] = perms.default_mode
    return Settings(permissions=PermissionsSettings.model_validate(keep))


def _parses(text: str, behavior: Any) -> bool:
    try:
        parse_rule(text, behavior)
    except RuleError:
        return False
    return True


def _rule_problems(src: LoadedSource) -> list[SettingsProblem]:
    assert src.settings is not None
    out: list[SettingsProblem] = []
    perms = src.settings.permissions
    for behavior in ("deny", "ask", "allow"):
        for text in getattr(perms, behavior):
            try:
                rule = parse_rule(text, behavior, src.name, src.path or src.name, src.base_dir)  # type: ignore[arg-type]
            except RuleError as exc:
                out.append(
                    SettingsProblem(
                        src.path or src.name,
                        f"permissions.{behavior}: {exc}",
                        _line_of_string(src.text, text),
                        src.name,
                    )
                )
                continue
            warning = unknown_tool_warning(rule)
            if warning:
                line = _line_of_string(src.text, text)
                out.append(SettingsProblem(src.path or src.name, f"permissions.{behavior}: "
                                           f"{warning}", line, src.name, severity="warning"))  # fmt: skip
    return out


def _hook_problems(src: LoadedSource) -> list[SettingsProblem]:
    """Only the errors: the session's own hook parse reports the warnings once."""
    assert src.settings is not None
    if not src.settings.hooks:
        return []
    config = parse_hook_sources(
        [HookSource(src.name, src.path or src.name, src.settings.hooks)], trusted=True
    )
    out: list[SettingsProblem] = []
    for problem in config.problems:
        if problem.severity != "error":
            continue
        event = re.match(r"hooks\.(\w+)", problem.message)
        line = _line_of_key(src.text, event.group(1) if event else "hooks")
        out.append(replace(problem, line=line))
    return out


def _line_of_string(text: str, value: str) -> int | None:
    """The line where a string value is written (quoted as TOML or JSON would)."""
    for i, line in enumerate(text.splitlines(), start=1):
        if f'"{value}"' in line or f"'{value}'" in line:
            return i
    for i, line in enumerate(text.splitlines(), start=1):
        if value and value in line:
            return i
    return None


def _line_of_key(text: str, key: str) -> int | None:
    pattern = re.compile(rf"(^|[\s{{,\[.])\"?{re.escape(key)}\"?\s*(=|:|\]|\.)")
    for i, line in enumerate(text.splitlines(), start=1):
        if pattern.search(line):
            return i
    return None
