"""Claude Code's idle Notification: after a turn ends, if the prompt waits for the user longer
than `LATHE_IDLE_NOTIFY_MS` (default 60 s, Claude Code's threshold), Notification hooks get
`notification_type` "idle_prompt" with "Claude is waiting for your input" (once per wait)."""

from __future__ import annotations

import os

IDLE_MESSAGE = "Claude is waiting for your input"
DEFAULT_IDLE_MS = 60_000


def idle_seconds() -> float:
    try:
        ms = int(os.environ.get("LATHE_IDLE_NOTIFY_MS", "") or DEFAULT_IDLE_MS)
    except ValueError:
        ms = DEFAULT_IDLE_MS
    return max(ms, 1) / 1000
