"""A plugin agent whose frontmatter does not read loads as Claude Code 2.1.332 loads it (ext-r3
F9); one whose frontmatter reads but lacks a field is still skipped, so a `tools:` it names is
never dropped for every tool."""

from __future__ import annotations

from pathlib import Path

from app.agents.loader import AgentSet, add_plugin_agents
from app.config.plugins import Plugin


def _plugin(tmp_path: Path, files: dict[str, str]) -> Plugin:
    root = tmp_path / "pd"
    for name, text in files.items():
        path = root / "agents" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Plugin("pd", root, "cli")


def test_unreadable_frontmatter_falls_back_and_a_missing_field_does_not(tmp_path: Path) -> None:
    plugin = _plugin(
        tmp_path,
        {
            "creator.md": "---\nname: creator\ndescription: Use it. Examples:\n\n<example>\n"
            "</example>\n\ntools: Read\n---\n\nPROMPT\n",
            "nodesc.md": "---\nname: nodesc\ntools: Read\n---\nX\n",
            "open.md": "---\nname: open\ndescription: never closed\n",
        },
    )
    agents = AgentSet()
    add_plugin_agents(agents, [plugin])
    assert sorted(agents.agents) == ["pd:creator"]
    creator = agents.agents["pd:creator"]
    assert (creator.description, creator.tools, creator.model) == (
        "Agent from pd plugin",
        None,
        None,
    )
    assert creator.system_prompt == "PROMPT"
    problems = "\n".join(agents.problems)
    assert "loaded as pd:creator" in problems
    assert "nodesc.md skipped: no `description`" in problems and "open.md skipped" in problems
