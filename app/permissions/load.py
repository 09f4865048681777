"""Build a PermissionContext from the settings sources (CONTRACT.md "Settings files")."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from app.config.loader import (
    PROJECT_SOURCES,
    LoadedSettings,
    SettingsProblem,
)
from app.config.models import PermissionMode
from app.config.paths import home_dir
from app.config.rules import (
    Rule,
    RuleBehavior,
    RuleError,
    parse_rule,
    rule_kind,
    split_rule_list,
)
from app.permissions.context import PermissionContext
from app.permissions.matching import path_rule_root
from app.permissions.paths import inside
from app.permissions.scriptfiles import session_start
from app.permissions.trust import is_trusted


def working_dir_forms(folder: str) -> tuple[str, ...]:
    """A working folder as written (normalised) and through its symlinks."""
    logical = os.path.normpath(os.path.abspath(os.path.expanduser(folder)))
    real = os.path.realpath(logical)
    return (logical,) if real == logical else (logical, real)


# Modes that ask for or deny at least what `default` does: a project may choose them untrusted.
_NOT_WIDER_MODES = ("default", "plan", "dontAsk")


def _reaches_outside(rule: Rule, project: str, home: str) -> bool:
    """Whether an allow rule names paths outside the project (`Read(//etc/**)`, `~/...`, `..`)."""
    if rule_kind(rule.tool) not in ("path_read", "path_write"):
        return False
    if rule.specifier is None or rule.specifier.strip() in ("*", "**", ""):
        return True  # `Read`, `Grep`, `Read(*)`: every path, outside the project too
    root, pattern = path_rule_root(rule, project, home)
    fixed = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
    target = os.path.normpath(os.path.join(root, fixed.lstrip("/")))
    return not inside(target, (os.path.normpath(project),))


def context_from_settings(
    loaded: LoadedSettings,
    trusted: bool = True,
    env: Mapping[str, str] | None = None,
    confine_untrusted: bool = False,
) -> PermissionContext:
    """`confine_untrusted` (headless runs, which honour the project's settings): in a folder the
    trust records do not name, what a checked-in project file would widen -- its allow rules and
    `additionalDirectories` -- is ignored with a warning, as Claude Code ignores them in an
    untrusted workspace ("Ignoring 1 permissions.allow entry ..."); its deny and ask rules and
    its mode still apply. The context says so (`confined`), so that the same folder's commands'
    and skills' `allowed-tools` are ignored too (app/commands/scope.py)."""
    problems: list[SettingsProblem] = list(loaded.problems)
    rules: dict[RuleBehavior, list[Rule]] = {"allow": [], "deny": [], "ask": []}
    mode: PermissionMode = "default"
    mode_source = ""
    dirs: list[str] = []
    bypass_disabled = False
    project = loaded.project_dir
    cli = loaded.cli
    confine = confine_untrusted and not is_trusted(project, env)
    confined_source = False  # whether the source being read is one `confine` applies to
    ignored: dict[str, list[Rule]] = {}  # allow rules of a confined source, by file
    ignored_from: dict[str, str] = {}  # the source of each such file (for the warning's label)
    home = str(home_dir(env))

    def add(text: object, behavior: RuleBehavior, source: str, origin: str, base: str) -> None:
        try:
            rule = parse_rule(text, behavior, source, origin, base)  # type: ignore[arg-type]
        except RuleError as exc:
            # Dropped from the context, and an error: -p refuses to run, the TUI asked first
            # (app.config.failclosed found it already, so it is not reported twice).
            problem = SettingsProblem(origin, str(exc), source=source)
            if problem not in problems:
                problems.append(problem)
            return
        if behavior == "allow" and confined_source:
            # A checked-in file must not widen what runs before anyone trusted the folder (the
            # repository may be hostile): Claude Code ignores these too, saying how many.
            ignored.setdefault(origin, []).append(rule)
            ignored_from[origin] = source
            return
        rules[behavior].append(rule)

    for src in loaded.sources:
        confined_source = False
        if src.name == "cli":
            for text in split_rule_list(cli.allowed_tools):
                add(text, "allow", "cli", "--allowedTools", project)
            for text in split_rule_list(cli.disallowed_tools):
                add(text, "deny", "cli", "--disallowedTools", project)
            if cli.permission_mode:
                mode, mode_source = cli.permission_mode, "cli"
            dirs.extend(cli.add_dirs)
            continue
        if src.settings is None:
            continue
        perms = src.settings.permissions
        untrusted_project = src.name in PROJECT_SOURCES and not trusted
        confined_source = confine and src.shared
        origin = src.path or src.name
        for behavior in ("deny", "ask", "allow"):
            if behavior == "allow" and untrusted_project:
                continue
            for text in getattr(perms, behavior):
                add(text, behavior, src.name, origin, src.base_dir)  # type: ignore[arg-type]
        if untrusted_project:
            # A repository must not widen its own permissions before it is trusted.
            if perms.default_mode in _NOT_WIDER_MODES:
                mode, mode_source = perms.default_mode, src.name
            continue
        # Any project file -- the user's own untracked local one too -- may not start a session
        # of a folder nobody trusted in bypassPermissions: nobody can prove the file is the
        # user's (a tarball, a copied folder), and Claude Code 2.1.332 ignores it there too
        # (measured: untracked `.claude/settings.local.json`, `claude -p`, mode stays default).
        bypass_from_project = (
            confine and src.name in PROJECT_SOURCES and perms.default_mode == "bypassPermissions"
        )
        wider = perms.default_mode and perms.default_mode not in _NOT_WIDER_MODES
        if (confined_source and wider) or bypass_from_project:
            # One scalar must not beat what the allow rules above may not do: a cloned repository
            # starting itself in bypassPermissions or acceptEdits (over the user's own default).
            problems.append(
                SettingsProblem(
                    origin,
                    f"default mode {perms.default_mode} ignored: this folder is not trusted "
                    "(trust it in the TUI, or pass --permission-mode)",
                    source=src.name,
                    severity="warning",
                )
            )
        elif perms.default_mode:
            mode, mode_source = perms.default_mode, src.name
        if confined_source and perms.additional_directories:
            problems.append(
                SettingsProblem(
                    origin,
                    "additionalDirectories ignored: this folder is not trusted (trust it in the "
                    "TUI, or pass --add-dir)",
                    source=src.name,
                    severity="warning",
                )
            )
            continue
        for folder in perms.additional_directories:
            base = src.base_dir
            dirs.append(
                folder if os.path.isabs(os.path.expanduser(folder)) else os.path.join(base, folder)
            )
        if src.name == "policy" and perms.disable_bypass_mode:
            bypass_disabled = True
    for origin, dropped in ignored.items():
        entries = "entry" if len(dropped) == 1 else "entries"
        # The ones that would have reached outside the project are named: the worst of them.
        outside = [r.display() for r in dropped if _reaches_outside(r, project, home)]
        named = f"; {', '.join(outside[:5])} would reach outside the project" if outside else ""
        problems.append(
            SettingsProblem(
                origin,
                f"Ignoring {len(dropped)} permissions.allow {entries}: this workspace has not "
                f"been trusted (trust it in the TUI, or pass --allowedTools){named}",
                source=ignored_from.get(origin, "project"),
                severity="warning",
            )
        )
    if bypass_disabled and mode == "bypassPermissions":
        problems.append(
            SettingsProblem(
                mode_source or "policy",
                "bypassPermissions mode is disabled by policy; starting in default mode",
                source="policy",
                severity="warning",
            )
        )
        mode = "default"
    working: list[str] = []
    for folder in (project, *dirs):
        for form in working_dir_forms(folder):
            if form not in working:
                working.append(form)
    return PermissionContext(
        mode=mode,
        allow=tuple(rules["allow"]),
        deny=tuple(rules["deny"]),
        ask=tuple(rules["ask"]),
        project_dir=project,
        working_dirs=tuple(working),
        home=home,
        trusted=trusted,
        confined=confine,
        bypass_disabled=bypass_disabled,
        problems=tuple(problems),
        local_settings_path=str(Path(project) / ".lathe" / "settings.local.toml"),
        session_started_ns=session_start(project),
    )
