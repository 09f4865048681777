"""The strict lexer beside bashlex: where bash ends a here-document, what it refuses to model,
and that bashlex and it must agree (or the command is opaque)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.files.paths import kernel_normpath
from tools.shell import analyze
from tools.shell.scan import scan


@pytest.mark.parametrize(
    ("command", "commands"),
    [
        ("cat <<'X'\nX\ntouch P\n'X'", [("cat",), ("touch", "P"), ("X",)]),
        ('cat <<"X"\nbody $x\nX\nls', [("cat",), ("ls",)]),
        ("cat <<\\X\nX\nls", [("cat",), ("ls",)]),
        ("cat <<-X\n\tbody\n\tX\nls", [("cat",), ("ls",)]),
        ("cat <<A <<B\na\nA\nb\nB\nls", [("cat",), ("ls",)]),
        ("cat <<X | wc -l\nX\nls", [("cat",), ("wc", "-l"), ("ls",)]),
    ],
)
def test_heredoc_ends_where_bash_ends_it(command: str, commands: list[tuple[str, ...]]) -> None:
    assert scan(command).reason == ""
    assert scan(command).commands == commands
    a = analyze(command)
    assert a.analysable, a.error
    assert [p.words for p in a.parts if p.words] == commands


def test_bash_agrees_on_the_heredoc_end(tmp_path: Path) -> None:
    """The lexer's reading is bash's: the command after the short delimiter really runs."""
    subprocess.run(["bash", "-c", "cat <<'X' >/dev/null\nX\ntouch P\n'X'"], cwd=tmp_path)
    assert (tmp_path / "P").exists()


@pytest.mark.parametrize(
    "command",
    [
        "cat <<'X Y'\nX Y\n",
        'cat <<E"O"F\nEOF\n',
        "cat <<X\n$(id)\nX",
        "cat <<X\n`id`\nX",
        "cat <<X\n${x:-y}\nX",
        "cat <<X\nno end",
        "echo ${!x}",
        "echo ${x@P}",
        "echo ${x:-y}",
        "echo ${a[1]}",
        "echo $'x'",
        'echo $"x"',
        "echo $[1]",
        "echo $((a[1]))",
        "echo $(( $(id) ))",
        "(( x = 1 ))",
        "[[ -f x ]]",
        "case x in a) ls;; esac",
        "f() { ls; }",
        "function f { ls; }",
        "a[1]=x",
        "select x in a; do ls; done",
        "coproc ls",
        "ls {fd}>x",
        "for ((i=0;i<2;i++)); do ls; done",
    ],
)
def test_unmodelled_constructs_are_opaque(command: str) -> None:
    assert scan(command).reason
    assert not analyze(command).analysable


@pytest.mark.parametrize(
    "command",
    [
        "echo $((1 + 2 * (3 - x)))",
        'echo "$HOME" ${PWD} $? $# $1',
        "for f in a b; do echo $f; done",
        "if [ -f x ]; then cat x; elif true; then ls; else pwd; fi",
        "while false; do ls; done",
        "{ ls; pwd; } | wc -l",
        "(cd src && ls)",
        "echo a#b # comment",
        "ls \\\n  -la",
        'echo \'its\' "a \\"b\\" c"',
        "cat <(ls) | grep x",
        "echo `date`",
    ],
)
def test_modelled_constructs_agree(command: str) -> None:
    assert scan(command).reason == "", scan(command).reason
    assert analyze(command).analysable, analyze(command).error


@pytest.mark.parametrize(("command", "word"), [("echo 'it''s'", "its"), ('echo "q\\z"', "q\\z")])
def test_words_bashlex_misreads_are_read_as_bash_reads_them(command: str, word: str) -> None:
    # bashlex reads `'it''s'` as `it''s` and `"q\z"` as `qz`; bash (and the lexer) do not. A word
    # without expansions is unquoted by POSIX rules (tools/shell/parse.py posix_unquote), so the
    # two parsers agree on it (the TUI round 3 report's F6); a disagreement is still opaque.
    assert scan(command).reason == ""
    analysis = analyze(command)
    assert analysis.analysable, analysis.error
    assert analysis.parts[0].words == ("echo", word)


def test_names_assignments_and_arithmetic_are_recorded() -> None:
    s = scan("x=1; for f in a; do echo $y ${z} $((w + 1)); done")
    assert s.assigned == {"x", "f"}
    assert {"y", "z"} <= s.names
    assert s.arith_names == {"w"}


def test_kernel_normpath_follows_the_link_before_dot_dot(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "t" / "sub").mkdir(parents=True)
    (tmp_path / "a" / "link").symlink_to(tmp_path / "t" / "sub")
    assert kernel_normpath(f"{tmp_path}/a/link/../x") == f"{tmp_path}/t/x"
    assert kernel_normpath(f"{tmp_path}/a/./b/../c") == f"{tmp_path}/a/c"
    assert kernel_normpath(f"{tmp_path}/a/link/x") == f"{tmp_path}/a/link/x"  # kept as written
    # What the kernel opens:
    (tmp_path / "t" / "x").write_text("k")
    assert (tmp_path / "a" / "link" / ".." / "x").read_text() == "k"
