"""Skill folders as Claude Code 2.1 reads them (measured side by side, see CHANGELOG.md), and
the copies of real public skills in tests/fixtures/claude_setups/."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.commands.arguments import substitute
from app.commands.loader import BUILTIN_COMMAND_NAMES, load_commands
from app.commands.prompt import match_command
from app.skills.catalog import skill_text
from app.skills.loader import LISTING_HEADER, add_skill_commands, load_skills

SETUPS = Path(__file__).resolve().parents[2] / "fixtures" / "claude_setups"


def _skill(root: Path, name: str, text: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_four_folders_in_precedence_order_named_by_folder(tmp_path: Path) -> None:
    home, config, project = tmp_path / "home", tmp_path / "cfg", tmp_path / "p"
    _skill(home / ".claude" / "skills", "a", "---\ndescription: user a\n---\nA")
    _skill(home / ".claude" / "skills", "b", "---\ndescription: user b\n---\nB")
    _skill(config / "skills", "c", "---\ndescription: lathe user c\n---\nC")
    _skill(project / ".claude" / "skills", "b", "---\ndescription: project b\n---\nB2")
    _skill(project / ".lathe" / "skills", "d", "---\nname: other\ndescription: d\n---\nD")
    found = load_skills(project, config, {"HOME": str(home)})
    assert found.problems == []
    assert sorted(found.skills) == ["a", "b", "c", "d"]
    # The user's skill wins, as in Claude Code 2.1.332 (ext-r2 F1).
    assert found.skills["b"].description == "user b" and found.skills["b"].source == "user"
    assert found.skills["a"].source == "user" and found.skills["c"].description == "lathe user c"
    # The folder names the skill; a different frontmatter name is shown beside it and reaches it.
    assert found.get("other") is found.skills["d"] and found.skills["d"].display_name == "other"
    assert found.listing() == (
        f"{LISTING_HEADER}\n\n- a: user a\n- b: user b\n- c: lathe user c\n- d (other): d"
    )


def test_frontmatter_fields_and_fallbacks(tmp_path: Path) -> None:
    root = tmp_path / ".claude" / "skills"
    _skill(
        root,
        "full",
        "---\nname: full\ndescription: Does it all\nallowed-tools: Bash(git diff:*), Read\n"
        "model: haiku\nargument-hint: [file]\nmetadata:\n  version: 2\n  tags:\n    - x\n"
        "license: MIT\n---\nBody $ARGUMENTS\n",
    )
    _skill(root, "plain", "No frontmatter: this first line is the description.\nmore\n")
    _skill(root, "hidden", "---\ndescription: user only\ndisable-model-invocation: true\n---\nH")
    _skill(root, "modelonly", "---\ndescription: m\nuser-invocable: false\n---\nM")
    found = load_skills(tmp_path, None, {"HOME": str(tmp_path / "nohome")})
    assert found.problems == []
    full = found.skills["full"]
    assert full.allowed_tools == ("Bash(git diff:*)", "Read") and full.model == "haiku"
    assert full.argument_hint == "[file]" and full.body == "Body $ARGUMENTS\n"
    assert found.skills["plain"].listing_line() == (
        "- plain: No frontmatter: this first line is the description."
    )
    assert not found.skills["hidden"].model_invocable
    assert "hidden" not in found.listing() and "modelonly" in found.listing()
    commands = load_commands(tmp_path, None, BUILTIN_COMMAND_NAMES, {"HOME": str(tmp_path)})
    commands.skills = found
    add_skill_commands(commands, BUILTIN_COMMAND_NAMES)
    # `/hidden` is the user's to type; `modelonly` is not a slash command.
    assert "hidden" in commands.commands and "modelonly" not in commands.commands
    assert commands.commands["full"].base_dir == str(root / "full")
    assert commands.commands["full"].help == "Does it all [file] (skill, project)"


def test_a_malformed_skill_is_a_notice_and_the_others_load(tmp_path: Path) -> None:
    root = tmp_path / ".claude" / "skills"
    bad = _skill(root, "broken", "---\nname: broken\ndescription: [unclosed\n  - x: : y\n---\nb")
    _skill(root, "unclosed", "---\ndescription: never closed\nbody")
    _skill(root, "good", "---\ndescription: fine\n---\nG")
    (root / "bad name!").mkdir()
    (root / "bad name!" / "SKILL.md").write_text("x")
    found = load_skills(tmp_path, None, {"HOME": str(tmp_path / "nohome")})
    # A frontmatter never closed is no frontmatter (Claude Code 2.1.332, ext-r3 F3).
    assert sorted(found.skills) == ["good", "unclosed"]
    assert found.skills["unclosed"].body == "---\ndescription: never closed\nbody"
    assert any(str(bad) in p and "line 4" in p for p in found.problems), found.problems
    assert not any("never closed" in p for p in found.problems)
    assert any("is not a skill name" in p for p in found.problems)


def test_skills_win_a_name_and_builtins_are_never_shadowed(tmp_path: Path) -> None:
    """A skill beats a custom command of its name, as in Claude Code 2.1.332 (ext-r4 F12)."""
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "deploy.md").write_text("command body")
    root = tmp_path / ".claude" / "skills"
    _skill(root, "deploy", "---\ndescription: skill deploy\n---\nskill body")
    _skill(root, "help", "---\ndescription: not a builtin\n---\nx")
    from app.skills.session_load import load_for_session

    commands, _skills = load_for_session(str(tmp_path), env={"HOME": str(tmp_path / "h")})
    assert commands.commands["deploy"].body == "skill body"
    assert commands.commands["deploy"].base_dir != ""
    assert not any("custom command" in p and "deploy" in p for p in commands.problems)
    assert any("/help is a built-in command" in p for p in commands.problems)
    # The model still has both skills (a name clash only concerns `/name`).
    assert commands.skills.get("deploy") is not None and commands.skills.get("help") is not None
    hit = match_command("/deploy now", commands)
    assert hit is not None and hit[0].body == "skill body"


def test_real_public_skills_load(tmp_path: Path) -> None:
    """anthropics/skills internal-comms, anthropics/claude-plugins-official example-command and
    telegram configure (plugin skills, copied into a project's .claude/skills), and
    obra/superpowers requesting-code-review as a user skill."""
    project = tmp_path / "p"
    shutil.copytree(SETUPS / "anthropics-skills", project)
    shutil.copytree(
        SETUPS / "anthropics-claude-plugins-official" / ".claude",
        project / ".claude",
        dirs_exist_ok=True,
    )
    home = tmp_path / "home"
    shutil.copytree(SETUPS / "obra-superpowers" / "skills", home / ".claude" / "skills")
    found = load_skills(project, None, {"HOME": str(home)})
    assert found.problems == []
    assert sorted(found.skills) == [
        "configure",
        "example-command",
        "internal-comms",
        "requesting-code-review",
    ]
    comms = found.skills["internal-comms"]
    assert comms.description.startswith("A set of resources to help me write all kinds of")
    assert comms.allowed_tools == () and comms.model_invocable
    example = found.skills["example-command"]
    assert example.allowed_tools == ("Read", "Glob", "Grep", "Bash")
    assert example.argument_hint == "<required-arg> [optional-arg]"
    configure = found.skills["configure"]
    assert configure.allowed_tools == (
        "Read",
        "Write",
        "Bash(ls *)",
        "Bash(mkdir *)",
        "Bash(echo *)",
        "Bash(chmod *)",
    )
    assert configure.user_invocable
    review = found.skills["requesting-code-review"]
    assert review.source == "user" and review.description.startswith("Use when completing")
    text = skill_text(example, substitute(example.body, "alpha beta"))
    assert text.startswith(f"Base directory for this skill: {example.base_dir}\n\n")
    assert "The user invoked this with: alpha beta" in text
    assert "ARGUMENTS:" not in text  # substituted, so not appended
    listing = found.listing().splitlines()
    assert listing[0] == LISTING_HEADER and len(listing) == 2 + 4
