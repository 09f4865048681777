"""Bash declares the commands that destroy data (the UI warns louder before approving them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.bash import BashTool


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "timeout 5 rm x",
        "git reset --hard HEAD~1",
        "git clean -fdx",
        "git push --force origin main",
        "git branch -D old",
        "find . -name '*.pyc' -delete",
        "echo x > important.txt",
        "dd if=/dev/zero of=disk.img",
        "ls $(rm -rf /)",
        "mkfs.ext4 /dev/sdb1",
        "git checkout -- .",
        "git stash drop",
        "/bin/rm a",
        "echo `rm -rf build`",
        "x=$(rm a)",
        "cat <(rm x)",
        "$(echo rm) -rf build",  # the command name is made at run time
        'eval "$CMD"',  # runs code it was given as words
        "sh -c 'anything'",
        "xargs rm < list",
    ],
)
def test_destructive(command: str) -> None:
    tool = BashTool()
    assert tool.is_destructive(tool.parse_input({"command": command})), command


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "git status",
        "git push origin main",
        "echo hi > /dev/null",
        "npm test",
        "cat a >> log",
        # A substitution whose inner commands were parsed is judged by them: no false warning.
        "echo $(date)",
        "echo `date +%s`",
        "echo $((1 + 2))",
    ],
)
def test_not_destructive(command: str) -> None:
    tool = BashTool()
    assert not tool.is_destructive(tool.parse_input({"command": command})), command


@pytest.mark.parametrize(
    "command",
    [
        "cat <<'X'\nX\nrm -rf build\n'X'",  # the heredoc ends at `X`: rm runs
        "{ echo hi; } > README.md",  # a compound's redirect overwrites the file
        "for f in a; do echo; done > out.txt",
        "{rm,-rf,build}",  # brace expansion makes the command word
        "echo ${x@P}",  # unmodelled: assume the worst
    ],
)
def test_destructive_through_parser_differentials(command: str) -> None:
    tool = BashTool()
    assert tool.is_destructive(tool.parse_input({"command": command})), command


# -- replacing a file: destructive only when the file is there ---------------------------------


@pytest.mark.parametrize(
    ("command", "destroys"),
    [
        ("echo hi > out.txt", False),  # a new file
        ("echo hi > old.txt", True),  # its content replaced
        ("echo hi >| old.txt", True),
        ("echo hi &> out.txt", False),
        ("echo hi >> old.txt", False),  # appended
        ("cp app.py app2.py", False),
        ("cp app.py old.txt", True),
        ("cp -n app.py old.txt", False),  # no clobber
        ("cp --backup app.py old.txt", False),
        ("cp app.py sub", False),  # into a folder without sub/app.py
        ("cp old.txt sub", True),  # sub/old.txt exists
        ("cp -t sub old.txt", True),
        ("mv app.py new.py", False),
        ("mv app.py old.txt", True),
        ("echo x | tee new.log", False),
        ("echo x | tee old.txt", True),
        ("echo x | tee -a old.txt", False),
        ("cd sub && echo hi > out.txt", True),  # where it lands is not known: fail closed
        ("echo hi > $F", True),  # a target made at run time
        ("echo hi > *.txt", True),
    ],
)
def test_overwrite_needs_an_existing_file(tmp_path: Path, command: str, destroys: bool) -> None:
    (tmp_path / "old.txt").write_text("keep me\n")
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "old.txt").write_text("keep me too\n")
    tool = BashTool()
    parsed = tool.parse_input({"command": command})
    assert tool.is_destructive_at(parsed, str(tmp_path)) is destroys, command


@pytest.mark.parametrize("command", ["echo hi > out.txt", "cp a b", "echo x | tee log"])
def test_overwrite_without_a_folder_fails_closed(command: str) -> None:
    """The declaration without a folder cannot look: every target counts as existing."""
    tool = BashTool()
    assert tool.is_destructive(tool.parse_input({"command": command})), command


# -- removing files: destructive only when one of them is there ---------------------------------


@pytest.mark.parametrize(
    ("command", "destroys"),
    [
        ("rm -f nothing_here.txt", False),  # removes nothing
        ("rm -f *.tmp", False),  # a glob that matches nothing
        ("rm -f -- gone.txt", False),
        ("unlink gone.txt", False),
        ("rm old.txt", True),
        ("rm -f *.txt", True),  # matches old.txt
        ("rm -rf sub", True),  # a folder
        ("rmdir sub", True),
        ("shred -u old.txt", True),
        ("rm -f gone.txt old.txt", True),
        ("rm -f $F", True),  # made at run time: unknowable
        ("rm -f ~/gone.txt", True),
        ("rm -f {a,b}.txt", True),
        ("cd sub && rm -f gone.txt", True),  # where it runs is not known: fail closed
        ("xargs rm < list", True),  # its operands come from elsewhere
    ],
)
def test_remove_needs_an_existing_file(tmp_path: Path, command: str, destroys: bool) -> None:
    (tmp_path / "old.txt").write_text("keep me\n")
    (tmp_path / "sub").mkdir()
    tool = BashTool()
    parsed = tool.parse_input({"command": command})
    assert tool.is_destructive_at(parsed, str(tmp_path)) is destroys, command


def test_remove_without_a_folder_fails_closed() -> None:
    tool = BashTool()
    assert tool.is_destructive(tool.parse_input({"command": "rm -f nothing_here.txt"}))
