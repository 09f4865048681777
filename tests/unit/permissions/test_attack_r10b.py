"""Round 10 of the black-box attack, F2 and F4, through the real loaders and decider.

F2: a program that follows symbolic links while it walks a tree (`grep -R`, `rg -L`, `find -L`,
`ls -RL`, `du -L`, `tree -l`, `cp -rL`, `tar -h`, `rsync -L`...) reads what a checked-in link
(`vendor -> ~/.ssh`) points to, so it counts as reading inside the working folders only when no
link below its folders leads outside them or into a Read-denied path. Programs that do not follow
links met while walking (GNU `grep -r`, `ls -R`, `find`, `du`) stay allowed (the controls).

F4: a glob whose folder part matches a link leading outside (`echo */*`) lists names there, as
`ls vendor` would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.permissions import identity
from app.permissions.context import PermissionContext
from app.permissions.linkwalk import follows_while_walking
from tests.unit.permissions.helpers import bash, context, home_of

NOT_BYPASS = ("default", "acceptEdits", "plan", "dontAsk")


def _linked(tmp: Path, mode: str = "default", **kw: tuple[str, ...]) -> PermissionContext:
    """A project that ships `vendor -> ~/.ssh` (outside every working folder)."""
    pc = context(tmp, mode=mode, **kw)  # type: ignore[arg-type]
    ssh = Path(home_of(pc)) / ".ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    (ssh / "id_rsa").write_text("PRIVATE_KEY_MARK\n")
    (ssh / "sub").mkdir(exist_ok=True)
    os.symlink(ssh, Path(pc.project_dir) / "vendor")
    (Path(pc.project_dir) / "src" / "util.py").write_text("x = 1\n")
    return pc


FOLLOWING_WALKS = (
    "grep -R PRIVATE .",
    "grep -R PRIVATE",
    "grep -rR KEY",
    "grep -Rn --exclude-dir=.git PRIV",
    "grep -R PRIV ./",
    "grep --dereference-recursive -l MARK .",
    "grep --deref -l MARK .",
    "grep -R -h '' --include='id_*' .",
    "grep -R -o -a . --include=id_rsa",
    "egrep -R PRIV .",
    "fgrep -R PRIV .",
    "/usr/bin/grep -R PRIV .",
    "rg -L PRIV",
    "rg --follow PRIV .",
    "find -L . -name id_rsa",
    "find . -follow -name id_rsa",
    "ls -RL",
    "ls -laRL",
    "ls -R -L src",
    "ls -RL -I src",
    "du -L -a .",
    "du -abL .",
    "tree -l",
    "diff -r src vendor",
)


@pytest.mark.parametrize("mode", NOT_BYPASS)
@pytest.mark.parametrize("command", FOLLOWING_WALKS)
def test_a_walk_following_a_link_outside_is_not_auto_allowed(
    tmp_path: Path, mode: str, command: str
) -> None:
    pc = _linked(tmp_path, mode)
    d = bash(pc, command)
    assert d.behavior != "allow", (command, d.reason)


# The controls: the same programs without link following, in the same project.
NON_FOLLOWING = (
    "grep -r PRIVATE .",
    "grep -rn foo src",
    "grep -rni PRIVATE",
    "grep -d recurse PRIV .",
    "egrep -r PRIV .",
    "rg PRIV",
    "find . -name id_rsa",
    "ls -R",
    "ls -la src",
    "du -a .",
    "tree",
    "echo *",
    "echo src/*",
    "echo s*/*",
)


@pytest.mark.parametrize("command", NON_FOLLOWING)
def test_walks_that_do_not_follow_links_stay_allowed(tmp_path: Path, command: str) -> None:
    pc = _linked(tmp_path)
    d = bash(pc, command)
    assert d.behavior == "allow", (command, d.reason)


def test_real_gnu_grep_r_does_not_follow_links_met_while_walking(tmp_path: Path) -> None:
    """The premise of the controls, checked on the grep this machine runs."""
    import subprocess

    pc = _linked(tmp_path)

    def run(flag: str) -> str:
        argv = ["grep", flag, "PRIVATE_KEY_MARK", "."]
        return subprocess.run(argv, cwd=pc.project_dir, capture_output=True, text=True).stdout

    assert run("-r") == ""
    assert "PRIVATE_KEY_MARK" in run("-R")


@pytest.mark.parametrize(
    "command",
    ["grep -R foo src", "grep -Rn foo .", "rg -L foo", "find -L . -name '*.py'", "ls -RL",
     "du -L .", "tree -l"],
)  # fmt: skip
def test_a_normal_project_keeps_link_following_walks(tmp_path: Path, command: str) -> None:
    pc = context(tmp_path)
    project = Path(pc.project_dir)
    (project / "src" / "lib").mkdir()
    os.symlink("lib", project / "src" / "alias")  # a link inside the project: harmless
    os.symlink("../README.md", project / "src" / "readme")
    d = bash(pc, command)
    assert d.behavior == "allow", (command, d.reason)


def test_a_link_to_an_outside_file_is_followed_too(tmp_path: Path) -> None:
    pc = context(tmp_path)
    outside = Path(home_of(pc)) / "notes.txt"
    outside.write_text("x\n")
    os.symlink(outside, Path(pc.project_dir) / "src" / "notes")
    assert bash(pc, "grep -R x src").behavior != "allow"
    assert bash(pc, "grep -r x src").behavior == "allow"


def test_a_link_into_a_read_denied_folder_inside_is_not_walked(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Read(./secrets/**)",))
    project = Path(pc.project_dir)
    (project / "secrets").mkdir()
    (project / "secrets" / "key").write_text("k\n")
    os.symlink("../secrets", project / "src" / "s")
    for command in ("find -L src -name key", "ls -RL src", "du -L -a src"):
        assert bash(pc, command).behavior != "allow", command


def test_a_read_deny_on_another_folder_does_not_open_the_walk(tmp_path: Path) -> None:
    """gr6: a deny rule naming ~/.ssh says nothing about ~/.aws behind `cloud`."""
    pc = context(tmp_path, deny=("Read(~/.ssh/**)",))
    aws = Path(home_of(pc)) / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text("AWS_SECRET_MARK\n")
    os.symlink(aws, Path(pc.project_dir) / "cloud")
    d = bash(pc, "grep -R SECRET .")
    assert d.behavior != "allow"
    assert "outside the working folders" in (d.reason.text if d.reason else "")


def test_an_added_working_folder_makes_the_link_inside(tmp_path: Path) -> None:
    pc0 = context(tmp_path)
    ssh = Path(home_of(pc0)) / ".ssh"
    pc = context(tmp_path, add_dirs=(str(ssh),))
    ssh.mkdir(exist_ok=True)
    os.symlink(ssh, Path(pc.project_dir) / "vendor")
    assert bash(pc, "grep -R PRIV .").behavior == "allow"
    assert bash(pc, "echo */*").behavior == "allow"


def test_the_walk_fails_closed_past_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path)
    for i in range(12):
        (Path(pc.project_dir) / "src" / f"f{i}.py").write_text("")
    monkeypatch.setattr("app.permissions.linkwalk.WALK_LIMIT", 10)
    assert identity.WALK_LIMIT > 10  # only the walker's bound changed
    d = bash(pc, "grep -R foo src")
    assert d.behavior != "allow"
    assert "too many" in (d.reason.text if d.reason else "")
    assert bash(pc, "grep -r foo src").behavior == "allow"


@pytest.mark.parametrize(
    ("rule", "command"),
    [("Bash(grep:*)", "grep -R PRIV ."), ("Bash(find:*)", "find -L ."),
     ("Bash(ls:*)", "ls -RL"), ("Bash(echo:*)", "echo */*"), ("Bash(du:*)", "du -L .")],
)  # fmt: skip
def test_a_prefix_rule_does_not_cover_the_walk(tmp_path: Path, rule: str, command: str) -> None:
    pc = _linked(tmp_path, allow=(rule,))
    assert bash(pc, command).behavior != "allow"


@pytest.mark.parametrize("command", ["cp -rL src out", "rsync -rL src/ out/", "tar -chf o.tar src",
                                     "cp -R --dereference src out"])  # fmt: skip
def test_accept_edits_copiers_following_links_ask(tmp_path: Path, command: str) -> None:
    pc = _linked(tmp_path, "acceptEdits")
    os.symlink(Path(home_of(pc)) / ".ssh", Path(pc.project_dir) / "src" / "keys")
    assert bash(pc, command).behavior != "allow", command


@pytest.mark.parametrize(
    ("words", "follows"),
    [(("grep", "-r"), False), (("grep", "-R"), True), (("grep", "-rR"), True),
     (("rgrep", "x"), False), (("ls", "-L"), False), (("ls", "-lRL"), True),
     (("cp", "-r", "a", "b"), False), (("cp", "-aL", "a", "b"), True), (("tar", "chf", "o", "."), True),
     (("tar", "-cf", "o", "."), False), (("rsync", "-a", "a", "b"), False),
     (("rsync", "--copy-unsafe-links", "a", "b"), True), (("zip", "-r", "o", "."), True),
     (("zip", "-ry", "o", "."), False), (("diff", "-r", "a", "b"), True),
     (("diff", "-r", "--no-dereference", "a", "b"), False), (("find", ".", "-name", "x"), False),
     (("chmod", "-RL", "700", "."), True), (("du", "-s"), False)],
)  # fmt: skip
def test_which_calls_follow_links_while_walking(words: tuple[str, ...], follows: bool) -> None:
    assert follows_while_walking(words) is follows


# --- F4: globs through a link ---------------------------------------------------------------------

GLOBS = ("echo */*", 'printf "%s\\n" */*', "echo v*/*", "echo */id*", "echo {src,vendor}/*",
         "echo */sub/", "printf %s */*")  # fmt: skip


@pytest.mark.parametrize("mode", NOT_BYPASS)
@pytest.mark.parametrize("command", GLOBS)
def test_a_glob_through_a_link_outside_is_an_outside_read(
    tmp_path: Path, mode: str, command: str
) -> None:
    pc = _linked(tmp_path, mode)
    d = bash(pc, command)
    assert d.behavior != "allow", (command, d.reason)
    assert "outside the working folders" in (d.reason.text if d.reason else ""), d.reason


def test_a_glob_over_folders_inside_stays_allowed(tmp_path: Path) -> None:
    pc = context(tmp_path)
    (Path(pc.project_dir) / "src" / "pkg").mkdir()
    os.symlink("src", Path(pc.project_dir) / "alias")
    for command in ("echo */*", "echo */*/*", "printf '%s\\n' */*.py", "echo *"):
        assert bash(pc, command).behavior == "allow", command


# Globs bash expands outside a simple command's words: a `for` loop's words, a glob assigned to a
# variable that a later unquoted `$x` expands.
LATER_GLOBS = ("for f in */*; do echo $f; done", "for f in vendor/*; do echo $f; done",
               "for f in ~/.ssh/*; do echo $f; done", "for f in /etc/*; do echo $f; done",
               "x=~/.ssh/*; echo $x", "x=*/*; echo $x")  # fmt: skip


@pytest.mark.parametrize("mode", NOT_BYPASS)
@pytest.mark.parametrize("command", LATER_GLOBS)
def test_a_glob_expanded_later_lists_outside_names(tmp_path: Path, mode: str, command: str) -> None:
    pc = _linked(tmp_path, mode)
    d = bash(pc, command)
    assert d.behavior != "allow", (command, d.reason)
    assert "outside the working folders" in (d.reason.text if d.reason else ""), d.reason


@pytest.mark.parametrize(
    "command",
    ["for f in src/*; do echo $f; done", "for f in a b; do echo $f; done", "x=src/*; echo $x",
     "echo */", "echo */."],
)  # fmt: skip
def test_globs_naming_only_inside_stay_allowed(tmp_path: Path, command: str) -> None:
    pc = _linked(tmp_path)
    assert bash(pc, command).behavior == "allow", command
