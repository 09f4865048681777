"""The sixth black-box attack's classes (round 5, second half): abbreviated long options, variables
that carry a program's options, git's pager and external programs, folder and glob pathspecs,
repositories whose git dir is elsewhere, git writing lathe's settings, npm's folder options.

Each class is judged through the decider every mode uses; the first test of a class shows that
the program really reads what the attack relies on.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.unit.permissions.helpers import bash, context

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")


def _secrets(pc_dir: str) -> None:
    (Path(pc_dir) / "secrets").mkdir(exist_ok=True)
    (Path(pc_dir) / "secrets" / "key.txt").write_text("SECRETKEY=k1\n")


# --- F7/F8: long options abbreviated as getopt_long reads them -----------------------------------


def test_grep_reads_abbreviated_long_options_and_values(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("SECRET\n")
    for args in (["--recur"], ["--deref"], ["--dir=rec"], ["--dir", "rec"], ["-d", "rec"]):
        out = subprocess.run(["grep", *args, "SECRET", "."], cwd=tmp_path, capture_output=True,
                             text=True).stdout  # fmt: skip
        assert "./d/f:SECRET" in out, args


@pytest.mark.parametrize("mode", MODES)
def test_abbreviated_recursion_never_reads_denied_files(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(grep:*)", "Bash(diff:*)"),
                 deny=("Read(./.env)", "Read(./secrets/**)"), mode=mode)  # fmt: skip
    _secrets(pc.project_dir)
    for command in ("grep --recur SECRET .", "grep --rec SECRET .", "grep --deref SECRET .",
                    "grep --dereference-r SECRET .", "grep --dir=recurse SECRET .",
                    "grep --dire=rec SECRET .", "grep --dir recurse SECRET .",
                    "grep --dir=rec SECRET .", "grep -d rec SECRET .",
                    "grep --dir=recurse -h SECRET src/..", "egrep --recu SECRET .",
                    "diff --recur --new-f src .", "diff --unidir --recur src .",
                    "diff --new-f --recur -x .git src ."):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command, d.reason and d.reason.text)


def test_an_unknown_or_ambiguous_long_option_asks(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(grep:*)", "Bash(sort:*)"), mode="default")
    for command in ("grep --frobnicate x README.md", "grep --in x README.md",
                    "sort --comp=x README.md", "grep --re x README.md"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior == "ask", (command, d.behavior)
    # Whole and unambiguous spellings of everyday options are unchanged.
    for command in ("grep --ignore-case x README.md", "grep --ign x README.md",
                    "grep -rn --include=*.py x src", "sort --rev README.md",
                    "ls --color=auto -la", "du -sh --max-depth=1 src", "diff --brief README.md src/main.py",
                    "head --lines=3 README.md", "wc --lines README.md"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior == "allow", (command, d.behavior, d.reason and d.reason.text)
