"""Side-by-side runs of lathe and Claude Code under faults and long sessions (run.py)."""
