"""Counts in words, singular where it is one: "1 more line", "3 more lines"."""

from __future__ import annotations


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and the noun: "1 line", "2 lines" (`words`: an irregular plural)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def more_lines(n: int) -> str:
    """ "1 more line", "12 more lines": what a cut text leaves out."""
    return f"{n} more {'line' if n == 1 else 'lines'}"
