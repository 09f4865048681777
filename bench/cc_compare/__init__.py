"""Side-by-side permission comparison of lathe and Claude Code on one corpus (see run.py)."""
