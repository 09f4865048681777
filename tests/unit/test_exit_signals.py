"""app/exit_signals.py: which signals are taken, and the exit codes."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from app.exit_signals import ExitSignals, exit_code, install


@pytest.fixture
def hup_ignored() -> Iterator[None]:
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, old)


def test_codes_are_128_plus_the_signal() -> None:
    assert [exit_code(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)] == [130, 129, 143]


def test_an_ignored_sighup_stays_ignored(hup_ignored: None) -> None:
    # `nohup lathe -p ...` asked to outlive the terminal.
    taken: list[int] = []
    handler = ExitSignals(lambda sig: None)
    install(lambda sig, *args: taken.append(sig), handler)
    assert signal.SIGHUP not in taken
    assert signal.SIGTERM in taken and signal.SIGINT in taken


def test_the_first_signal_is_kept_and_handled_once() -> None:
    seen: list[int] = []
    handler = ExitSignals(seen.append, deadline=60)
    handler(int(signal.SIGTERM))
    handler.cancel_deadline()
    assert seen == [signal.SIGTERM] and handler.received == signal.SIGTERM
    assert handler.name == "SIGTERM"
