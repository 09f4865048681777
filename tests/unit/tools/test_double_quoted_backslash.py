"""A backslash inside double quotes escapes only $ ` " \\ and a newline (POSIX): bashlex dropped it
before `n`, so `python3 -c "print('\\n'.join(...))"` read differently to the two parsers, was judged
opaque ("shell syntax that hides commands") and destructive (the TUI round 3 report's F6)."""

from __future__ import annotations

import pytest

from tools.shell.destructive import is_destructive_command
from tools.shell.parse import analyze, posix_unquote

PRINTS = "python3 -c \"print('\\n'.join(['a','b']))\""


def test_a_printing_one_liner_is_neither_opaque_nor_destructive() -> None:
    analysis = analyze(PRINTS)
    assert analysis.analysable, analysis.error
    assert analysis.parts[0].words == ("python3", "-c", "print('\\n'.join(['a','b']))")
    assert not is_destructive_command(PRINTS)


@pytest.mark.parametrize(
    "command",
    [
        'rm -rf "build\\n"',
        'echo "x\\"y" > foo.py',
        'find . -name "*\\n" -delete',
        "git checkout -- .",
    ],
)
def test_real_destruction_is_still_warned(command: str) -> None:
    assert is_destructive_command(command)


@pytest.mark.parametrize(
    ("raw", "word"),
    [
        ('"a\\nb"', "a\\nb"),
        ('"a\\"b"', 'a"b'),
        ('"a\\\\b"', "a\\b"),
        ("'a\\nb'", "a\\nb"),
        ("a\\nb", "anb"),
        ('"open', None),
    ],
)
def test_quote_removal(raw: str, word: str | None) -> None:
    assert posix_unquote(raw) == word
