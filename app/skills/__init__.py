"""Skills: folders with a SKILL.md (Claude Code's), offered to the model through the Skill tool."""
