"""The plain-command fast path must agree with bashlex on every command it accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.shell.fastparse import fast_split
from tools.shell.parse import _parse_checked, analyze

WORD_CHARS = "abcxyz019_./:=@%+,-"
words = st.text(alphabet=WORD_CHARS, min_size=1, max_size=6)
names = st.sampled_from(
    ["ls", "git", "npm", "rm", "cat", "echo", "FOO=1", "A=b", "x=", "2", "if", "time", "done"]
)
redirects = st.sampled_from(
    [
        "",
        " > out",
        ">out",
        " >> log",
        " 2>&1",
        " 2> err",
        " < in",
        " &> all",
        " >| f",
        "2>x",
        " >&2",
    ]
)
ops = st.sampled_from([" && ", " || ", " | ", "; ", "|", "&&", ";", " & ", " && && "])
spaces = st.sampled_from(["", " ", "\t", "  "])


@st.composite
def commands(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        simple = draw(names) + "".join(" " + draw(words) for _ in range(draw(st.integers(0, 3))))
        parts.append(draw(spaces) + simple + draw(redirects) + draw(spaces))
    out = parts[0]
    for part in parts[1:]:
        out += draw(ops) + part
    return out


def shape(analysis):
    return [
        (p.text, p.words, p.assignments, tuple((r.op, r.target) for r in p.redirects))
        for p in analysis.parts
    ]


@settings(max_examples=600, deadline=None)
@given(commands())
def test_fast_path_agrees_with_bashlex(command: str) -> None:
    fast = fast_split(command)
    if fast is None:
        return  # the parser decides; nothing to compare
    slow = _parse_checked(command, False)
    assert slow.parsed and not slow.opaque and not slow.nested, (command, slow.error)
    assert shape(analyze(command)) == shape(slow), command


def test_fast_path_refuses_everything_it_cannot_see() -> None:
    for command in [
        "echo $HOME",
        "ls *.py",
        "echo 'a b'",
        'echo "x"',
        "a & b",
        "ls ~",
        "echo a\\ b",
        "cat <<EOF",
        "f() { ls; }",
        "(ls)",
        "ls # c",
        "echo !x",
        "a\nb",
        "echo `id`",
        "x && ",
    ]:
        assert fast_split(command) is None, command


def test_fast_path_is_used_for_plain_commands() -> None:
    assert fast_split("npm run test && git diff --stat | wc -l > out.txt") is not None
