"""Bash declares the commands that destroy data (the UI warns louder before approving them)."""

from __future__ import annotations

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
