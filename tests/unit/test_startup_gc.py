"""app/startup_gc.py: the collector paused for start-up comes back, with start-up's objects frozen;
a collector that was already off is left as it was."""

from __future__ import annotations

import gc

from app import startup_gc


def test_pause_then_resume_turns_the_collector_back_on_and_freezes() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    startup_gc.pause()
    try:
        assert not gc.isenabled() and startup_gc.paused()
        kept = [object() for _ in range(10)]
    finally:
        startup_gc.resume()
    assert gc.isenabled() and not startup_gc.paused()
    assert gc.get_freeze_count() >= frozen + len(kept)
    startup_gc.resume()  # once only
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    try:
        startup_gc.pause()
        assert not startup_gc.paused()
        startup_gc.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
