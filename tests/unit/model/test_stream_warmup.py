"""The SDK's first stream parse done ahead (app/model/stream_warmup.py), in a fresh interpreter with
the lazy SDK import installed as lathe runs it: it must go through the SDK's own decoder and model
construction (a False means the private names it uses moved, and the warm-up silently stopped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROGRAM = """
import sys
from app.model import lazy_sdk
lazy_sdk.install()
from app.model.stream_warmup import warm_stream_types
assert "anthropic.types.raw_content_block_delta_event" not in sys.modules
assert warm_stream_types() is True
# The event models a streamed answer is built from are imported and built now.
for name in ("raw_message_start_event", "raw_content_block_delta_event", "raw_message_stop_event"):
    assert "anthropic.types." + name in sys.modules, name
print("warm")
"""


def test_the_warm_up_builds_the_stream_events_with_the_real_sdk() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "warm"
