"""Red team: the plain-command fast path against bashlex, on a much wider alphabet.

The generator draws every shell metacharacter, quoting form, unicode space and lookalike, numeric
file descriptors, `&` alone, `|&`, `>|`, here-strings, globs, braces and `~`: whenever the fast path
accepts a command, bashlex must see exactly the same simple commands; and the fast path must never
accept text with syntax it does not model.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.shell.fastparse import fast_split
from tools.shell.parse import _parse_checked, analyze

# Plain characters plus everything that means something to bash, and unicode that looks like it.
ALPHABET = (
    "abcxyz019_./:=@%+,-"
    " \t|&;<>()$`'\"\\*?[]{}~#!^"
    "\u00a0\u2003\u3000\u2028\uff1b\uff06\u037e\u2215\uff5c"
)
FRAGMENTS = [
    "&&", "||", "|", ";", "&", "|&", ">|", ">>", "2>&1", ">&2", "1>", "10>", "2>", "&>", "&>>",
    "<<<", "<<", "<>", "<&0", ">&-", "2>&1-", "$IFS", "${IFS}", "$(x)", "`x`", "{a,b}", "~",
    "~root", "*", "?", "[a]", "#", "!", "\\\n", "'a b'", '"a b"', "a=b", "A+=1", "time", "if",
    "{", "}", "(", ")", "--", "-", "=", "x=", "%1",
]  # fmt: skip
chars = st.text(alphabet=ALPHABET, min_size=1, max_size=4)
pieces = st.one_of(chars, st.sampled_from(FRAGMENTS), st.sampled_from(["ls", "git", "rm", "FOO=1"]))
commands = st.lists(
    st.tuples(pieces, st.sampled_from(["", " ", "\t"])), min_size=1, max_size=8
).map(lambda ps: "".join(p + s for p, s in ps))

# Characters whose presence means the fast path may not be used at all.
FORBIDDEN = set("$`'\"\\*?[]{}~#!()^\n\r") | {c for c in ALPHABET if ord(c) > 127}


def shape(analysis):  # type: ignore[no-untyped-def]
    return [
        (p.text, p.words, p.assignments, tuple((r.op, r.target) for r in p.redirects))
        for p in analysis.parts
    ]


@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(commands)
def test_fast_path_never_disagrees_on_wide_alphabet(command: str) -> None:
    fast = fast_split(command)
    if fast is None:
        return
    assert not (set(command) & FORBIDDEN), command
    slow = _parse_checked(command, False)
    assert slow.parsed and not slow.opaque and not slow.nested, (command, slow.error)
    assert shape(analyze(command)) == shape(slow), command


HANDPICKED = [
    "ls\u00a0-la", "ls\u2003x", "git status\u3000;\u3000rm x", "ls \uff1b rm x", "ls & rm x",
    "ls &", "ls |& rm", "ls >| x", "ls 2>&1- x", "ls <<< x", "ls <& 0", "ls >&-", "ls 3<> x",
    "ls 1>&2 2>&1", "a=1", "ls a=1", "A=1 B=2 ls", ">x A=1 ls", "ls > x > y", "ls 2>>x",
    "git status;rm x", "git status&&rm x", "ls -- -x", "x=y=z ls", "_=1 ls", "ls %1", "%1",
    "ls ,x", "ls @x", "ls 9>x", "ls 99999999999999999999>x", "ls x>", "ls >",
]  # fmt: skip


def test_fast_path_handpicked() -> None:
    for command in HANDPICKED:
        fast = fast_split(command)
        if fast is None:
            continue
        assert not (set(command) & FORBIDDEN), command
        slow = _parse_checked(command, False)
        assert slow.parsed and not slow.opaque, (command, slow.error)
        assert shape(analyze(command)) == shape(slow), command
