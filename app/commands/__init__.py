"""Custom slash commands from `.claude/commands` and `.lathe/commands` folders (Claude Code's)."""
