"""The seventh black-box attack's classes (round 6): arithmetic that evaluates a variable's value
(`$_`, `read`, `printf -v`, `let`, `declare -i`, assignments to RANDOM), `dd of=` as a write,
`git config` writing .git/config, a program put in node_modules/.bin, and globs that list a
folder outside the working folders or inside a Read-denied one.

Each class is judged through the decider every mode uses; the first test of a class shows that
bash really does what the attack relies on.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.permissions.helpers import bash, context

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
TYPICAL_ALLOW = ("Bash(git status)", "Bash(git diff:*)", "Bash(npm run test:*)", "Bash(ls:*)",
                 "Bash(echo:*)", "Read(./**)")  # fmt: skip
TYPICAL_DENY = ("Bash(rm:*)", "Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)",
                "Edit(./.git/**)", "Read(~/.ssh/**)")  # fmt: skip


def _ctime(path: Path) -> int:
    return os.stat(path).st_ctime_ns


# --- F5/F6: arithmetic evaluates a variable's value, and a subscript in it runs ------------------

ARITH = (
    r"true a[\$\(touch\ S\)]; echo $((_))",
    r"echo a[\$\(touch\ S\)] >/dev/null; echo $((_))",
    r"ls a[\$\(touch\ S\)] 2>/dev/null; echo $((_))",
    r"echo X && echo $((_+0))",
    r"echo X; echo $(( _ ))",
    r": X; echo $((_))",
    "echo X; let _",
    "let x",
    r"x=a[\$\(touch\ S\)]; echo $((x))",
    "read -r x < pl; echo $((x))",
    "read -r x < pl; y=$((x)); echo $y",
    "printf -v v %s q; echo $((v))",
    "mapfile -t A < pl; echo $((A))",
    "echo $((HOME))",
    "declare -i n; n=_",
    "typeset -ix n=q",
    "local -i n=q",
    "RANDOM='a[$(touch S)]'",
    "OPTIND='a[$(touch S)]' true",
)


@pytest.mark.parametrize(
    "command",
    [
        r"true a[\$\(touch\ S\)]; echo $((_))",
        r"x=a[\$\(touch\ S\)]; echo $((x))",
        r"true a[\$\(touch\ S\)]; let _",
        r"declare -i n; true a[\$\(touch\ S\)]; n=_",
        "RANDOM='a[$(touch S)]'",
        "OPTIND='a[$(touch S)]'",
        "printf -v v %s 'a[$(touch S)]'; echo $((v))",
    ],
)
def test_bash_really_runs_a_subscript_in_a_value(tmp_path: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10)
    assert (tmp_path / "S").exists(), command


@pytest.mark.parametrize("mode", MODES)
def test_arithmetic_over_a_value_never_runs_unasked(tmp_path: Path, mode: str) -> None:
    for rules in ((), TYPICAL_ALLOW):
        pc = context(tmp_path / str(len(rules)), allow=rules, deny=TYPICAL_DENY, mode=mode)
        for command in ARITH:
            d = bash(pc, command)
            assert d.behavior != "allow", (mode, rules, command)
            if mode in ("plan", "dontAsk", "bypassPermissions"):
                assert d.behavior == "deny", (mode, command)


def test_numbers_bash_keeps_stay_allowed(tmp_path: Path) -> None:
    pc = context(tmp_path, mode="default")
    for command in ("echo $((1 + 2))", "echo $((RANDOM % 6))", "echo $((SECONDS))"):
        d = bash(pc, command)
        assert d.behavior == "allow", (command, d.reason and d.reason.text)


# --- F1: `dd of=FILE` writes FILE ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_dd_of_is_a_write(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=TYPICAL_ALLOW, deny=TYPICAL_DENY, mode=mode)
    (Path(pc.project_dir) / "README").write_text("hello\n")
    for command in ("dd if=README of=.git/hooks/update", "dd if=README of=.git/config conv=notrunc",
                    "printf x | dd of=.lathe/settings.toml status=none", "dd if=README of=.mcp.json",
                    "dd if=README of=.git/hooks/../hooks/t", "dd of=.git/hooks/pre-commit if=README",
                    "dd if=README of=.claude/settings.json"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            assert d.behavior != "allow"


def test_dd_really_writes_its_of_operand(tmp_path: Path) -> None:
    (tmp_path / "README").write_text("hello\n")
    subprocess.run(["dd", "if=README", "of=copy", "status=none"], cwd=tmp_path, check=True)
    assert (tmp_path / "copy").read_text() == "hello\n"


# --- F3: `git config KEY VALUE` writes .git/config -----------------------------------------------

GIT_CONFIG_WRITES = (
    "git config core.fsmonitor 'touch S'",
    "git config alias.st '!touch S'",
    "git config core.hooksPath .",
    "git config --local core.sshCommand x",
    "git config --replace-all core.fsmonitor x",
    "git config --unset core.bare",
    "git config --add core.pager x",
    "git config --worktree core.pager x",
    "git config set core.pager x",
    "git config --type bool core.x true",
    "git -C . config core.pager x",
    "git config --file .git/config core.pager x",
    "git config -f.git/config core.pager x",
    "git config --edit",
)


@pytest.mark.parametrize("mode", MODES)
def test_git_config_writes_count_as_writes_into_git(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=(*TYPICAL_ALLOW, "Bash(git config:*)"), deny=TYPICAL_DENY,
                 mode=mode)  # fmt: skip
    subprocess.run(["git", "init", "-q"], cwd=pc.project_dir, check=True)
    for command in GIT_CONFIG_WRITES:
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            # The Edit(./.git/**) deny rule names the file `git config` writes.
            assert d.behavior == "deny", (mode, command, d.reason and d.reason.text)


def test_git_config_reads_are_not_writes(tmp_path: Path) -> None:
    from app.permissions.git_config_files import git_config_writes

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for command in ("git config user.name", "git config --get core.pager", "git config -l",
                    "git config --list --show-origin", "git config get core.pager",
                    "git config --get-regexp alias", "git status"):  # fmt: skip
        assert git_config_writes(tuple(command.split()), str(tmp_path), str(tmp_path)) == []
    found = git_config_writes(("git", "config", "core.pager", "x"), str(tmp_path), "/h")
    assert found == [str(tmp_path / ".git" / "config")]
    assert "/h/.gitconfig" in git_config_writes(
        ("git", "config", "--global", "a.b", "c"), ".", "/h"
    )


def test_a_gitfile_repository_s_config_is_found(tmp_path: Path) -> None:
    from app.permissions.git_config_files import git_config_writes

    (tmp_path / "real").mkdir()
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {tmp_path / 'real'}\n")
    found = git_config_writes(("git", "config", "a.b", "c"), str(tmp_path / "wt"), "/h")
    assert found == [str(tmp_path / "real" / "config")]


# --- F2: a program put in node_modules/.bin runs in place of `node` under `npm run` --------------


@pytest.mark.parametrize("mode", ("default", "acceptEdits", "dontAsk"))
def test_a_program_put_in_node_modules_bin_stops_the_rule(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=TYPICAL_ALLOW, deny=TYPICAL_DENY, mode=mode)
    project = Path(pc.project_dir)
    (project / "package.json").write_text('{"scripts": {"test": "node -e 1"}}\n')
    pc = replace(pc, session_started_ns=_ctime(project / "package.json") + 1)
    assert bash(pc, "npm run test").behavior == "allow"
    # Decided before the write, run after it: the same command planting the program.
    d = bash(
        pc, "mkdir -p node_modules/.bin && cp /bin/true node_modules/.bin/node && npm run test"
    )
    assert d.behavior != "allow"
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "node_modules" / ".bin" / "node").write_text("#!/bin/sh\nrm V\n")
    pc = replace(pc, session_started_ns=_ctime(project / "package.json") + 1)
    d = bash(pc, "npm run test")
    assert d.behavior != "allow", mode
    assert "node_modules/.bin" in (d.reason.text if d.reason else "")


# --- F4: a glob lists its folder's names -----------------------------------------------------------

GLOBS_OUT = ("echo $HOME/.ssh/*", "echo ~/.ssh/*", "echo ~/.ssh/*.pub ~/.ssh/id*",
             "echo homelink/.ssh/*", "echo ${HOME}/.ssh/*")  # fmt: skip
GLOBS_DENIED = ("echo secrets/*", "echo sl/*", "printf '%s\\n' secrets/*")


@pytest.mark.parametrize("mode", MODES)
def test_a_glob_into_a_denied_or_outside_folder(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=TYPICAL_ALLOW, deny=TYPICAL_DENY, mode=mode)
    project = Path(pc.project_dir)
    home = Path(pc.home)
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    (project / "secrets").mkdir()
    (project / "secrets" / "key").write_text("x")
    (project / "sl").symlink_to(project / "secrets")
    (project / "homelink").symlink_to(home)
    for command in (*GLOBS_OUT, *GLOBS_DENIED):
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode in ("dontAsk", "bypassPermissions"):
            assert d.behavior == "deny", (mode, command)
    assert bash(pc, "echo src/*").behavior == "allow"


def test_an_outside_glob_with_no_rules_asks(tmp_path: Path) -> None:
    pc = context(tmp_path, mode="default")
    (Path(pc.home) / ".ssh").mkdir(exist_ok=True)
    (Path(pc.home) / ".ssh" / "id_rsa").write_text("k")
    for command in ("echo $HOME/.ssh/*", "echo ~/.ssh/*", "echo ../*"):
        assert bash(pc, command).behavior == "ask", command


# --- F7: a checked-in bare or `*` path rule names paths outside the project ----------------------


def test_bare_and_star_path_rules_reach_outside() -> None:
    from app.config.rules import parse_rule
    from app.permissions.load import _reaches_outside

    for text in ("Read", "Grep", "Glob", "Edit", "Write", "Read(*)", "Grep(**)", "Edit(*)"):
        rule = parse_rule(text, "allow", "project", "settings.json", "/p")
        assert _reaches_outside(rule, "/p", "/h"), text
    for text in ("Read(./src/**)", "Read(s*)", "Edit(docs/*)", "Bash", "WebFetch"):
        rule = parse_rule(text, "allow", "project", "settings.json", "/p")
        assert not _reaches_outside(rule, "/p", "/h"), text


# --- a settings file with a 5,000-digit number: a clear error, not a Python ValueError ----------


@pytest.mark.parametrize("name", ["settings.json", "settings.toml"])
def test_a_huge_number_in_settings_is_a_settings_error(tmp_path: Path, name: str) -> None:
    from app.config.loader import read_settings_file

    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text('{"permissions": {"deny": ["Bash(rm:*)"]}, "x": ' + "9" * 5000 + "}")
    else:
        path.write_text("x = " + "9" * 5000 + "\n")
    read = read_settings_file(path, "project")
    assert read.problems and "more than 4,300 digits" in read.problems[0].message
