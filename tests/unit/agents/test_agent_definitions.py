"""Loading agent definitions (real public folders among them) and working out their tools and
model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.agents.definitions import AgentDefinition, resolve_model, select_tools
from app.agents.loader import load_agents
from tools.registry import get_all_base_tools

SETUPS = Path(__file__).parents[2] / "fixtures" / "claude_setups"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home")}


def test_the_1code_agents_folder_loads_as_claude_code_reads_it(tmp_path, home):
    project = tmp_path / "p"
    shutil.copytree(SETUPS / "1code-agents", project)
    agents = load_agents(project, None, home)
    assert agents.problems == []
    explorer = agents.get("repo-explorer")
    assert explorer is not None and explorer.source == "project"
    assert explorer.tools == ("Read", "Glob", "Grep") and explorer.model == "sonnet"
    assert explorer.description.startswith("Read-only codebase explorer")
    assert explorer.system_prompt.startswith("You are a read-only repository explorer")
    assert agents.get("code-reviewer").tools == ("Read", "Glob", "Grep", "Bash")  # type: ignore[union-attr]
    # The built-ins are there too, first.
    assert [a.name for a in agents.all()][:3] == ["general-purpose", "Explore", "Plan"]


def test_the_voltagent_folder_loads_and_its_readme_is_passed_over(tmp_path, home):
    project = tmp_path / "p"
    shutil.copytree(SETUPS / "voltagent-subagents", project)
    agents = load_agents(project, None, home)
    assert agents.problems == []  # README.md has no frontmatter: not a definition, no warning
    designer = agents.get("api-designer")
    assert designer is not None
    assert designer.description.startswith("Use this agent when designing new APIs")  # unquoted
    assert designer.tools == ("Read", "Write", "Edit", "Bash", "Glob", "Grep")
    assert "frontend-developer" in agents.agents and "README" not in agents.agents


def test_precedence_problems_and_lathe_folders(tmp_path):
    home = tmp_path / "home"
    config = tmp_path / "config"
    project = tmp_path / "p"
    for folder, text in (
        (home / ".claude" / "agents", "---\nname: same\ndescription: from ~/.claude\n---\nuser"),
        (config / "agents", "---\nname: mine\ndescription: lathe user\n---\nmine"),
        (project / ".claude" / "agents", "---\nname: same\ndescription: project\n---\nproject"),
    ):
        folder.mkdir(parents=True)
        (folder / "a.md").write_text(text)
    lathe_project = project / ".lathe" / "agents" / "nested"
    lathe_project.mkdir(parents=True)
    (lathe_project / "x.md").write_text(
        "---\nname: Explore\ndescription: my own explorer\ntools:\n  - Read\n  - Bash(git log:*)\n"
        "---\nbody"
    )
    (project / ".claude" / "agents" / "noname.md").write_text("---\ndescription: d\n---\nx")
    (project / ".claude" / "agents" / "open.md").write_text("---\nname: x\n")
    agents = load_agents(project, config, {"HOME": str(home)})
    assert agents.get("same").description == "project"  # type: ignore[union-attr]
    assert agents.get("mine").source == "user"  # type: ignore[union-attr]
    explore = agents.get("explore")  # a model's lower case still finds it
    assert explore is not None and explore.description == "my own explorer"
    assert explore.tools == ("Read", "Bash(git log:*)")
    assert len(agents.problems) == 2
    assert any("noname.md skipped: no `name`" in p for p in agents.problems)
    assert any("open.md skipped" in p and "never closed" in p for p in agents.problems)


def test_tools_are_cut_to_the_definition_and_never_include_agent():
    tools = get_all_base_tools()
    everything = AgentDefinition("all", "d", "p")
    names = [t.name for t in select_tools(everything, tools)]
    assert "Agent" not in names and "Bash" in names and "Edit" in names
    assert "ExitPlanMode" not in names and "AskUserQuestion" not in names
    only = AgentDefinition("r", "d", "p", tools=("Read", "Bash(git:*)", "MultiEdit", "Agent"))
    assert sorted(t.name for t in select_tools(only, tools)) == ["Bash", "Read"]
    looking = AgentDefinition("e", "d", "p", disallowed=("Edit", "Write", "NotebookEdit"))
    names = [t.name for t in select_tools(looking, tools)]
    assert "Edit" not in names and "Write" not in names and "Read" in names
    assert AgentDefinition("n", "d", "p", tools=()).tools_text() == "none"
    assert looking.tools_text() == "All tools except Edit, Write, NotebookEdit"


def test_model_choice():
    definition = AgentDefinition("x", "d", "p", model="haiku")
    assert resolve_model(None, definition, "claude-opus-4-6", {}) == "claude-haiku-5-5"
    assert resolve_model("opus", definition, "m", {}) == "claude-opus-5-5"
    inherit = AgentDefinition("x", "d", "p", model="inherit")
    assert resolve_model(None, inherit, "session-model", {}) == "session-model"
    env = {"CLAUDE_CODE_SUBAGENT_MODEL": "sonnet", "ANTHROPIC_DEFAULT_SONNET_MODEL": "my-sonnet"}
    assert resolve_model(None, inherit, "session-model", env) == "my-sonnet"
    custom = AgentDefinition("x", "d", "p", model="claude-3-5-haiku-20241022")
    assert resolve_model(None, custom, "m", {}) == "claude-3-5-haiku-20241022"
