"""Reusable Textual widgets for lathe. They take plain data (their own dataclasses, `tools` types)
and never import `app`: the TUI in `app/tui` translates engine events into calls on them."""
