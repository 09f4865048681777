"""Copies of real public setups (tests/fixtures/claude_setups/README.md) load and expand."""

from __future__ import annotations

from pathlib import Path

from app.commands.arguments import substitute
from app.commands.loader import BUILTIN_COMMAND_NAMES, load_commands
from app.memory.files import load_memory, memory_block_text

SETUPS = Path(__file__).resolve().parents[2] / "fixtures" / "claude_setups"


def _commands(name: str, tmp_path: Path):
    found = load_commands(SETUPS / name, None, BUILTIN_COMMAND_NAMES, {"HOME": str(tmp_path)})
    assert found.problems == []
    return found.commands


def test_cookbooks_commands(tmp_path: Path) -> None:
    commands = _commands("claude-cookbooks", tmp_path)
    assert sorted(commands) == ["link-review", "model-check", "notebook-review"]
    check = commands["model-check"]
    assert check.description == "Validate Claude model usage against current public models"
    assert check.allowed_tools == (
        "Bash(gh pr comment:*)",
        "Bash(gh pr diff:*)",
        "Bash(gh pr view:*)",
    )
    assert "allowed-tools" not in check.body and not check.body.startswith("---")
    # No $ARGUMENTS in the body: the arguments are appended (`$PR_NUMBER` is not a placeholder).
    out = substitute(check.body, "42")
    assert out.endswith("ARGUMENTS: 42") and "$PR_NUMBER" in out


def test_diversio_claude_md_imports_agents_md(tmp_path: Path) -> None:
    root = SETUPS / "diversio-claude-plugins"
    loaded = load_memory(root, root, None, {"HOME": str(tmp_path)})
    assert [m.path.name for m in loaded.files] == ["CLAUDE.md", "AGENTS.md"]
    text = memory_block_text(loaded.files)
    assert "Agent Skills marketplace repo" in text  # from AGENTS.md, through `@AGENTS.md`
    commands = _commands("diversio-claude-plugins", tmp_path)
    assert sorted(commands) == ["backend-atomic-commit:pre-commit", "mixpanel-analytics:review"]
    review = commands["mixpanel-analytics:review"]
    assert review.description.startswith("Review MixPanel tracking")
    assert substitute(review.body, "branch").endswith("ARGUMENTS: branch")


def test_command_suite_namespaced_arguments(tmp_path: Path) -> None:
    commands = _commands("claude-command-suite", tmp_path)
    assert sorted(commands) == ["dev:code-review", "dev:fix-issue"]
    fix = commands["dev:fix-issue"]
    assert fix.description == ""  # no frontmatter: the first line describes it
    assert fix.help.startswith("Fix Issue Command")
    out = substitute(fix.body, "123")
    assert "gh issue view 123" in out and "$ARGUMENTS" not in out
