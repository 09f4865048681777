"""Live settings reload: re-load the settings files on change and say what changed.

`SettingsReloader` is the pure part (load, diff against the last state, describe); the watch loop
around it is app/config/watch.py. A front end applies a `SettingsChange` (rules to the decider,
theme, keymap) and shows its `messages` in the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.config.loader import CliOverrides, LoadedSettings, load_settings, source_paths
from app.config.rules import Rule
from app.config.watch import keymap_from, theme_from
from app.permissions.context import PermissionContext
from app.permissions.load import context_from_settings


@dataclass(frozen=True)
class SettingsState:
    rules: frozenset[tuple[str, str]]  # (behavior, rule text) of the files' rules
    theme: str | None
    keymap: dict[str, str]
    problems: tuple[str, ...]


@dataclass
class SettingsChange:
    """What a reload found. `context` is the rebuilt rule context (None: rules unchanged)."""

    context: PermissionContext | None = None
    theme: str | None = None
    keymap: dict[str, str] | None = None
    messages: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.messages or self.problems)


def describe_rules(old: frozenset[tuple[str, str]], new: frozenset[tuple[str, str]]) -> str | None:
    added = sorted(new - old)
    removed = sorted(old - new)
    if not added and not removed:
        return None
    parts = [f"+{behavior} {text}" for behavior, text in added]
    parts += [f"-{behavior} {text}" for behavior, text in removed]
    return "Permission rules reloaded: " + ", ".join(parts)


class SettingsReloader:
    def __init__(
        self,
        project: Path,
        cli: CliOverrides | None = None,
        *,
        trusted: Callable[[], bool] = lambda: True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.project = project
        self.cli = cli or CliOverrides()
        self.trusted = trusted
        self.env = env
        self.state: SettingsState | None = None
        # The rule context of the last load: a file broken later keeps its deny rules from it.
        self.context: PermissionContext | None = None
        self.loaded: LoadedSettings | None = None  # the files as last read

    def paths(self) -> list[Path]:
        """Every settings file a session reads (those that do not exist yet too)."""
        found = [path for _, path in source_paths(self.project, self.env)]
        if self.cli.settings_file:
            found.append(Path(self.cli.settings_file).expanduser().resolve())
        return found

    def _load(
        self, loaded: LoadedSettings | None = None
    ) -> tuple[SettingsState, LoadedSettings, PermissionContext, list[str]]:
        if loaded is None:
            loaded = load_settings(self.project, self.cli, self.env)
        self.loaded = loaded
        context = context_from_settings(loaded, trusted=self.trusted(), env=self.env)
        return _state_of(loaded, context), loaded, context, problems_of(context)

    def prime(self, loaded: LoadedSettings | None = None) -> SettingsState:
        """Take the files as the baseline (the session was built from them). `loaded`: the
        load the session was built from, so the files are not read again."""
        self.state, _, self.context, _ = self._load(loaded)
        return self.state

    def reload(self, current: PermissionContext | None = None) -> SettingsChange:
        """Re-read every file and return what differs from the last state. `current` is the
        session's live context: its mode and its session-only rules survive the reload."""
        old = self.state
        new, loaded, context, problems = self._load()
        change = SettingsChange()
        broken = [s.path for s in loaded.sources if s.path and s.broken]
        if broken and old is not None:
            # A file saved mid-edit fails closed as at start: the deny and ask rules it had keep
            # applying (with any it still has), its allow rules are off until it is fixed.
            context = context.with_rules(self._kept_rules(set(broken)))
            new = replace(_state_of(loaded, context), theme=old.theme, keymap=old.keymap)
            if new.problems != old.problems:
                change.messages.append(
                    f"Settings broken in {', '.join(broken)}: its deny and ask rules stay, its "
                    "allow rules are off until it is fixed"
                )
        self.state = new
        self.context = context
        if old is None or new.rules != old.rules:
            change.context = context
            message = describe_rules(old.rules if old else frozenset(), new.rules)
            if message:
                change.messages.append(message)
        if old is None or new.theme != old.theme:
            change.theme = new.theme
            if new.theme:
                change.messages.append(f"Theme from settings: {new.theme}")
        if old is None or new.keymap != old.keymap:
            change.keymap = new.keymap
            shown = ", ".join(f"{k} = {v}" for k, v in sorted(new.keymap.items()))
            change.messages.append(f"Keymap reloaded: {shown or 'defaults'}")
        if old is None or new.problems != old.problems:
            change.problems = [p for p in problems if old is None or p not in old.problems]
        if change.context is not None and current is not None:
            change.context = merge_live(change.context, current)
        return change

    def _kept_rules(self, broken: set[str]) -> list[Rule]:
        """The deny and ask rules the last good load had from the files now broken."""
        last = self.context
        if last is None:
            return []
        return [r for r in (*last.deny, *last.ask) if r.origin in broken]


def problems_of(context: PermissionContext) -> list[str]:
    return [str(p) for p in context.problems]


def _state_of(loaded: LoadedSettings, context: PermissionContext) -> SettingsState:
    rules = frozenset(
        (rule.behavior, rule.display())
        for rule in (*context.allow, *context.deny, *context.ask)
        if rule.source != "cli"
    )
    return SettingsState(
        rules, theme_from(loaded), keymap_from(loaded), tuple(problems_of(context))
    )


def merge_live(loaded: PermissionContext, current: PermissionContext) -> PermissionContext:
    """The files' rules, with the live session's mode and its session-only rules kept."""
    session = [r for r in (*current.allow, *current.deny, *current.ask) if r.source == "session"]
    merged = replace(loaded, mode=current.mode, pre_plan_mode=current.pre_plan_mode)
    return merged.with_rules(session) if session else merged
