"""Memory files as Claude Code loads them: user, project, local, rules, imports, nested folders."""
