"""Permission updates a front end hands in with its answer: Claude Code's PermissionUpdate list
(the SDK's can_use_tool `updatedPermissions`) and ACP's "always reject".

An update adds, replaces or removes rules of one behavior (allow, deny, ask), switches the mode,
or adds or removes working folders, for the session or saved in one of lathe's settings files
(localSettings: `.lathe/settings.local.toml`, projectSettings: `.lathe/settings.toml`,
userSettings: the user's `settings.toml`). `parse_updates` checks a whole list before anything
is applied, so an update lathe cannot read is refused with a message naming it, never skipped;
`apply_updates` applies them to the running session at once (a saved one also to its file).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.config.paths import config_dir
from app.config.rules import Rule, RuleError, parse_rule
from app.permissions import PermissionContext, PersistError, RuleDecider, parse_mode
from app.permissions.persist import add_rules_to_file, remove_from_file

KINDS = (
    "addRules",
    "replaceRules",
    "removeRules",
    "setMode",
    "addDirectories",
    "removeDirectories",
)
# cliArg: Claude Code's "as if given on the command line", which lasts the session as well.
DESTINATIONS = ("session", "cliArg", "localSettings", "projectSettings", "userSettings")
BEHAVIORS = ("allow", "deny", "ask")
_FILE_SOURCES = {"localSettings": "local", "projectSettings": "project", "userSettings": "user"}


class UpdateError(Exception):
    """An update lathe cannot apply; the message names it and why."""


@dataclass(frozen=True)
class PermissionUpdate:
    kind: str
    destination: str = "session"
    behavior: str = "allow"
    rules: tuple[str, ...] = ()
    mode: str = ""
    directories: tuple[str, ...] = ()

    @property
    def saved(self) -> bool:
        return self.destination in _FILE_SOURCES


def rule_from_wire(value: Any) -> str | None:
    """`{"toolName": "Bash", "ruleContent": "npm test:*"}` -> `Bash(npm test:*)`."""
    if not isinstance(value, Mapping) or not isinstance(value.get("toolName"), str):
        return None
    content = value.get("ruleContent")
    return f"{value['toolName']}({content})" if isinstance(content, str) else value["toolName"]


def parse_update(raw: Any) -> PermissionUpdate:
    """One PermissionUpdate in Claude Code's wire shape; raises UpdateError naming the problem."""
    if not isinstance(raw, Mapping):
        raise UpdateError("a permission update must be an object")
    kind = raw.get("type")
    if kind not in KINDS:
        raise UpdateError(f"permission update type {kind!r} is not one of {', '.join(KINDS)}")
    destination = raw.get("destination", "session")
    if destination not in DESTINATIONS:
        raise UpdateError(
            f"{kind}: destination {destination!r} is not one of {', '.join(DESTINATIONS)}"
        )
    if kind == "setMode":
        mode = raw.get("mode")
        try:
            parse_mode(str(mode))
        except Exception:
            raise UpdateError(f"setMode: unknown mode {mode!r}") from None
        return PermissionUpdate(kind, str(destination), mode=str(mode))
    if kind in ("addDirectories", "removeDirectories"):
        dirs = raw.get("directories")
        if not isinstance(dirs, list) or not all(isinstance(d, str) and d for d in dirs):
            raise UpdateError(f"{kind}: `directories` must be a list of paths")
        if kind == "addDirectories":
            missing = [d for d in dirs if not Path(d).expanduser().is_dir()]
            if missing:
                raise UpdateError(f"addDirectories: {missing[0]} is not a folder")
        return PermissionUpdate(kind, str(destination), directories=tuple(dirs))
    behavior = raw.get("behavior")
    if behavior not in BEHAVIORS:
        raise UpdateError(f"{kind}: behavior {behavior!r} is not allow, deny or ask")
    items = raw.get("rules")
    if not isinstance(items, list):
        raise UpdateError(f"{kind}: `rules` must be a list")
    rules = []
    for item in items:
        text = rule_from_wire(item)
        if text is None:
            raise UpdateError(f"{kind}: a rule without a toolName: {item!r}")
        try:
            parse_rule(text, behavior)
        except RuleError as exc:
            raise UpdateError(f"{kind}: {exc}") from None
        rules.append(text)
    return PermissionUpdate(kind, str(destination), str(behavior), tuple(rules))


def parse_updates(raw: Any) -> tuple[PermissionUpdate, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise UpdateError("updatedPermissions must be a list of permission updates")
    return tuple(parse_update(item) for item in raw)


def settings_file(destination: str, pc: PermissionContext) -> Path:
    project = Path(pc.project_dir)
    if destination == "localSettings":
        return Path(pc.local_settings_path or project / ".lathe" / "settings.local.toml")
    if destination == "projectSettings":
        return project / ".lathe" / "settings.toml"
    return config_dir() / "settings.toml"


def _source(update: PermissionUpdate) -> str:
    return _FILE_SOURCES.get(update.destination, "session")


def _rules(pc: PermissionContext, update: PermissionUpdate, origin: str) -> list[Rule]:
    behavior: Any = update.behavior
    return [parse_rule(t, behavior, _source(update), origin, pc.project_dir) for t in update.rules]


def _of(pc: PermissionContext, behavior: str) -> tuple[Rule, ...]:
    return {"allow": pc.allow, "deny": pc.deny, "ask": pc.ask}[behavior]


def _drop(
    pc: PermissionContext, update: PermissionUpdate, texts: set[str] | None
) -> PermissionContext:
    """The context without the update's destination's rules of its behavior (`texts`: only
    those rules; None: all of them)."""
    for rule in _of(pc, update.behavior):
        if rule.source == _source(update) and (texts is None or rule.display() in texts):
            pc = pc.without_rule(rule)
    return pc


def _apply_one(pc: PermissionContext, update: PermissionUpdate) -> PermissionContext:
    path = settings_file(update.destination, pc) if update.saved else None
    origin = str(path) if path is not None else "this session"
    if update.kind == "setMode":
        return pc.with_mode(parse_mode(update.mode))
    if update.kind == "addRules":
        if path is not None:
            add_rules_to_file(path, update.rules, update.behavior)
        return pc.with_rules(_rules(pc, update, origin))
    if update.kind == "removeRules":
        if path is not None:
            remove_from_file(path, update.rules, update.behavior)
        return _drop(pc, update, set(update.rules))
    if update.kind == "replaceRules":
        if path is not None:
            old = [r.display() for r in _of(pc, update.behavior) if r.source == _source(update)]
            remove_from_file(path, old, update.behavior)
            add_rules_to_file(path, update.rules, update.behavior)
        return _drop(pc, update, None).with_rules(_rules(pc, update, origin))
    dirs = tuple(str(Path(d).expanduser().resolve()) for d in update.directories)
    if update.kind == "addDirectories":
        if path is not None:
            add_rules_to_file(path, dirs, "additional_directories")
        added = tuple(d for d in dirs if d not in pc.working_dirs)
        return replace(pc, working_dirs=(*pc.working_dirs, *added))
    if str(Path(pc.project_dir).resolve()) in dirs:
        raise UpdateError("removeDirectories: the project folder cannot be removed")
    if path is not None:
        remove_from_file(path, dirs, "additional_directories")
    return replace(pc, working_dirs=tuple(d for d in pc.working_dirs if d not in dirs))


def apply_updates(decider: RuleDecider, updates: Sequence[PermissionUpdate]) -> list[str]:
    """Apply each update in order to the decider's context; returns a line per saved change.
    A file that cannot take its change raises UpdateError (what came before it stays)."""
    notes: list[str] = []
    for update in updates:
        try:
            decider.set_context(_apply_one(decider.context, update))
        except (PersistError, RuleError) as exc:
            raise UpdateError(f"{update.kind} ({update.destination}): {exc}") from None
        if update.saved and update.kind == "setMode":
            notes.append(
                f"setMode {update.mode}: applied to this session; lathe does not save a mode "
                "to a settings file"
            )
        elif update.saved:
            what = ", ".join(update.rules or update.directories)
            path = settings_file(update.destination, decider.context)
            notes.append(f"Saved to {path} ({update.kind}): {what}")
    return notes


def directory_changes(updates: Sequence[PermissionUpdate]) -> tuple[list[str], set[str]]:
    """The folders the updates add and remove (absolute), for the tools' own list."""
    added: list[str] = []
    removed: set[str] = set()
    for update in updates:
        dirs = [str(Path(d).expanduser().resolve()) for d in update.directories]
        if update.kind == "addDirectories":
            added.extend(d for d in dirs if d not in added)
        elif update.kind == "removeDirectories":
            removed.update(dirs)
    return added, removed
