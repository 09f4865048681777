"""The cyclic garbage collector paused while lathe starts.

Start-up allocates what lives as long as the process (modules, classes, the SDK's and pydantic's
schemas, Textual's widgets); the ~150 collections it triggers before the first request find almost
nothing to free and cost about 8% of the CPU time to it. `pause()` at the start of a real run;
`resume()` once the session is built (-p) or the first frame is painted (the TUI) freezes what is
alive, so later full collections never walk it, and turns the collector back on. Only a process
lathe's own entry point runs is paused: a test calling `main()` keeps its collector.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what is alive and collect again; a no-op unless pause() turned the collector off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def paused() -> bool:
    return _paused
