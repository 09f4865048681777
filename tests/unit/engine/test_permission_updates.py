"""Claude Code's PermissionUpdate list applied to a real decider and real settings files."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine.permission_updates import (
    UpdateError,
    apply_updates,
    directory_changes,
    parse_updates,
)
from app.permissions import PermissionContext, RuleDecider, parse_rule


def rule(tool: str, content: str | None = None) -> dict[str, str]:
    return {"toolName": tool, **({"ruleContent": content} if content else {})}


def decider(project: Path) -> RuleDecider:
    return RuleDecider(
        PermissionContext(
            project_dir=str(project),
            working_dirs=(str(project),),
            local_settings_path=str(project / ".lathe" / "settings.local.toml"),
        )
    )


def texts(rules: tuple[object, ...], source: str) -> list[str]:
    return [r.display() for r in rules if r.source == source]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"type": "grantEverything"}, "not one of"),
        ({"type": "addRules", "rules": [rule("Bash")], "behavior": "maybe"}, "behavior"),
        ({"type": "addRules", "rules": [{"ruleContent": "x"}], "behavior": "allow"}, "toolName"),
        (
            {"type": "addRules", "rules": [rule("Bash")], "behavior": "allow", "destination": "x"},
            "destination",
        ),
        ({"type": "setMode", "mode": "yolo"}, "unknown mode"),
        ({"type": "addDirectories", "directories": "/tmp"}, "list of paths"),
        ("addRules", "must be an object"),
    ],
)
def test_an_update_lathe_cannot_read_is_refused_naming_it(raw: object, words: str) -> None:
    with pytest.raises(UpdateError, match=words):
        parse_updates([raw])


def test_session_rules_added_replaced_and_removed(project: Path) -> None:
    d = decider(project)
    add = {"type": "addRules", "rules": [rule("Bash", "ls:*"), rule("Read")], "behavior": "deny"}
    apply_updates(d, parse_updates([add]))
    assert texts(d.context.deny, "session") == ["Bash(ls:*)", "Read"]
    replace = {"type": "replaceRules", "rules": [rule("Grep")], "behavior": "deny"}
    apply_updates(d, parse_updates([replace]))
    assert texts(d.context.deny, "session") == ["Grep"]
    remove = {"type": "removeRules", "rules": [rule("Grep")], "behavior": "deny"}
    apply_updates(d, parse_updates([remove, {"type": "setMode", "mode": "acceptEdits"}]))
    assert texts(d.context.deny, "session") == [] and d.context.mode == "acceptEdits"
    assert not (project / ".lathe").exists()  # nothing of the session's is saved


def test_saved_rules_go_to_the_destinations_file(project: Path) -> None:
    d = decider(project)
    local = project / ".lathe" / "settings.local.toml"
    local.parent.mkdir()
    local.write_text('# mine\n[permissions]\nask = ["Bash(rm:*)"]\n')
    # The file's own rule, loaded as the settings loader would.
    loaded = parse_rule("Bash(rm:*)", "ask", "local", str(local), str(project))
    d.set_context(d.context.with_rules([loaded]))
    notes = apply_updates(
        d,
        parse_updates(
            [
                {
                    "type": "addRules",
                    "rules": [rule("WebFetch")],
                    "behavior": "ask",
                    "destination": "localSettings",
                },
                {
                    "type": "addRules",
                    "rules": [rule("Bash", "make:*")],
                    "behavior": "allow",
                    "destination": "projectSettings",
                },
            ]
        ),
    )
    assert "# mine" in local.read_text() and '"WebFetch"' in local.read_text()
    assert '"Bash(make:*)"' in (project / ".lathe" / "settings.toml").read_text()
    assert len(notes) == 2 and str(local) in notes[0]
    assert texts(d.context.ask, "local") == ["Bash(rm:*)", "WebFetch"]
    replaced = {
        "type": "replaceRules",
        "rules": [rule("Glob")],
        "behavior": "ask",
        "destination": "localSettings",
    }
    apply_updates(d, parse_updates([replaced]))
    assert texts(d.context.ask, "local") == ["Glob"]
    saved = local.read_text()
    assert '"Glob"' in saved and "rm:*" not in saved and "WebFetch" not in saved


def test_directories_added_and_removed(project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    d = decider(project)
    add = {"type": "addDirectories", "directories": [str(extra)], "destination": "localSettings"}
    updates = parse_updates([add])
    apply_updates(d, updates)
    assert str(extra) in d.context.working_dirs
    assert str(extra) in (project / ".lathe" / "settings.local.toml").read_text()
    assert directory_changes(updates) == ([str(extra)], set())
    gone = parse_updates([{"type": "removeDirectories", "directories": [str(extra)]}])
    apply_updates(d, gone)
    assert str(extra) not in d.context.working_dirs
    with pytest.raises(UpdateError, match="not a folder"):
        apply_updates(d, parse_updates([{"type": "addDirectories", "directories": ["/nope/x"]}]))
    with pytest.raises(UpdateError, match="project folder"):
        apply_updates(
            d, parse_updates([{"type": "removeDirectories", "directories": [str(project)]}])
        )
