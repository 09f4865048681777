"""Subagent definitions: the built-in agent types and those from Claude Code's and lathe's
`agents` folders (app/agents/loader.py)."""
