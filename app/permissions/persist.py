""" "Always allow" and "allow for this session": new rules applied at once (a new context), and for
"always" written to `<project>/.lathe/settings.local.toml` with tomlkit so comments and order stay."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.config.replace_file import replace_file
from app.config.rules import Rule, RuleError, parse_rule
from app.permissions.context import PermissionContext


class PersistError(Exception):
    """The rule could not be saved (the message names the file and why)."""


def _parse(pc: PermissionContext, texts: Sequence[str], source: str, origin: str) -> list[Rule]:
    rules = []
    for text in texts:
        try:
            rules.append(parse_rule(text, "allow", source, origin, pc.project_dir))
        except RuleError as exc:
            raise PersistError(str(exc)) from None
    return rules


def allow_for_session(pc: PermissionContext, texts: Sequence[str]) -> PermissionContext:
    return pc.with_rules(_parse(pc, texts, "session", "this session"))


def always_allow(pc: PermissionContext, texts: Sequence[str]) -> PermissionContext:
    """Write the rules to the local settings file, then return the context that includes them."""
    path = Path(pc.local_settings_path or Path(pc.project_dir) / ".lathe" / "settings.local.toml")
    rules = _parse(pc, texts, "local", str(path))
    add_rules_to_file(path, [r.text for r in rules], "allow")
    return pc.with_rules(rules)


def add_rules_to_file(path: Path, texts: Sequence[str], behavior: str = "allow") -> None:
    """Append rules to `[permissions].<behavior>` keeping the rest of the file byte for byte."""
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        original = ""
    except OSError as exc:
        raise PersistError(f"{path}: cannot read: {exc}") from None
    import tomlkit  # only needed when a rule is saved: kept off the start-up path
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(original)
    except TOMLKitError as exc:
        raise PersistError(f"{path}: not valid TOML, not changed ({exc})") from None
    perms = doc.get("permissions")
    if perms is None:
        perms = tomlkit.table()
        doc["permissions"] = perms
    elif not isinstance(perms, dict):
        raise PersistError(f"{path}: `permissions` is not a table, not changed")
    current = perms.get(behavior)
    if current is None:
        current = tomlkit.array()
        current.multiline(True)
        perms[behavior] = current
    elif not isinstance(current, list):
        raise PersistError(f"{path}: `permissions.{behavior}` is not a list, not changed")
    for text in texts:
        if text not in current:
            current.append(text)
    replace_file(path, tomlkit.dumps(doc))


def remove_from_file(path: Path, texts: Sequence[str], key: str = "allow") -> None:
    """Take entries out of `[permissions].<key>`, keeping the rest of the file byte for byte. A
    missing file or key has nothing to remove."""
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PersistError(f"{path}: cannot read: {exc}") from None
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(original)
    except TOMLKitError as exc:
        raise PersistError(f"{path}: not valid TOML, not changed ({exc})") from None
    perms = doc.get("permissions")
    current = perms.get(key) if isinstance(perms, dict) else None
    if not isinstance(current, list):
        return
    drop = set(texts)
    hits = [i for i, item in enumerate(current) if str(item) in drop]
    if not hits:
        return
    for index in reversed(hits):
        del current[index]
    replace_file(path, tomlkit.dumps(doc))
