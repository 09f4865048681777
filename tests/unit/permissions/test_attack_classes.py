"""Issue 11's attack classes in all five modes, with a typical rule set and with no rules at all.

The rows are in attack_rows.py. A row's kind says which answers are safe in which mode (see
there); everyday commands (CONTROLS) must stay auto-allowed. The sentinel test runs the attacks
through real bash to prove each one really creates the file `P` (so none of these rows is a
harmless string that could never fail).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.permissions import PermissionContext
from tests.unit.permissions.attack_rows import (
    BYPASS_CODE,
    BYPASS_LEAKS,
    CONTROLS,
    GIT_TOCTOU,
    PROC,
    ROWS,
)
from tests.unit.permissions.helpers import bash, context, decide

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
ALLOW = (
    "Bash(git status)",
    "Bash(npm run test:*)",
    "Bash(echo:*)",
    "Bash(git log:*)",
    "Bash(git diff:*)",
    "Bash(find:*)",
    "Bash(sed:*)",
    "Bash(sort:*)",
    "Bash(tree:*)",
    "Bash(date:*)",
    "Bash(rg:*)",
    "Bash(tar:*)",
    "Bash(man:*)",
    "Bash(jq:*)",
    "Bash(uniq:*)",
)
DENY = ("Read(./.env)", "Read(./secrets/**)", "Bash(rm:*)", "Bash(curl:*)")
# Rows that need the project's own git config to be booby-trapped.
TRAPPED = frozenset({"git status", "git st"})
# Rows proven (by the sentinel test) to create `P` when bash runs them in the project.
SENTINEL_KINDS = ("exec", "write")

_GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=_GIT_ENV, check=True, capture_output=True)


def furnish(project: Path, trapped: bool) -> None:
    """A real repository with a committed file, secrets, links and a bare repo in a subfolder."""
    tmp = project.parent
    shutil.rmtree(project / ".git")
    _git(project, "init", "-q")
    (project / "secrets").mkdir()
    (project / "secrets" / "x").write_text("SECRET=2\n")
    _git(project, "add", "README.md", "src/main.py")
    _git(project, "commit", "-qm", "init")
    (project / "deep").mkdir()
    os.symlink(project / "secrets", project / "deep" / "in")
    (tmp / "outside" / "sub").mkdir(parents=True)
    (tmp / "outside" / "outside.txt").write_text("outside\n")
    os.symlink(tmp / "outside" / "sub", project / "out")
    (project / ".git" / "x" / "y").mkdir(parents=True)
    os.symlink(project / ".git" / "x" / "y", project / "ghost")
    (project / "bin").mkdir()
    (project / "bin" / "ls").write_text("#!/bin/sh\n: > P\n")
    (project / "bin" / "ls").chmod(0o755)
    (project / "sub").mkdir()
    _git(project / "sub", "init", "-q", "--bare", "bare")
    _git(project / "sub" / "bare", "config", "core.fsmonitor", "touch P")
    if trapped:
        _git(project, "config", "core.fsmonitor", "touch P")
        _git(project, "config", "alias.st", "!touch P")


_WORLDS: dict[tuple[str, bool, bool], PermissionContext] = {}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    def get(mode: str, rules: bool, trapped: bool = False) -> PermissionContext:
        key = (mode, rules, trapped)
        if key not in _WORLDS:
            tmp = tmp_path_factory.mktemp(f"{mode}-{int(rules)}-{int(trapped)}")
            pc = context(tmp, allow=ALLOW if rules else (), deny=DENY if rules else (), mode=mode)
            furnish(Path(pc.project_dir), trapped)
            _WORLDS[key] = pc
        return _WORLDS[key]

    yield get
    _WORLDS.clear()


def _must_not_allow(kind: str, mode: str, rules: bool, klass: str) -> bool:
    if mode == "bypassPermissions":
        return False
    if kind == "leak":
        return rules  # without a deny rule nothing is protected
    if kind == "write" and mode == "acceptEdits":
        return klass == "paths"  # acceptEdits allows writes inside the project, not escapes
    return True


def test_corpus_size() -> None:
    assert len(ROWS) >= 180
    assert len({c for _, c, _ in ROWS}) == len(ROWS)


@pytest.mark.parametrize("rules", [True, False], ids=["rules", "norules"])
@pytest.mark.parametrize("mode", MODES)
def test_attack_rows(world, mode: str, rules: bool) -> None:  # type: ignore[no-untyped-def]
    through = []
    for klass, command, kind in ROWS:
        pc = world(mode, rules, command in TRAPPED)
        d = bash(pc, command)
        assert d.reason is not None and d.reason.text, command
        if kind == "dodge" and rules and mode in ("bypassPermissions", "dontAsk", "plan"):
            # Where nothing asks, a disguised denied command is denied outright.
            if d.behavior != "deny":
                through.append((klass, command, d.behavior, d.reason.text))
        elif _must_not_allow(kind, mode, rules, klass) and d.behavior == "allow":
            through.append((klass, command, d.behavior, d.reason.text))
    assert not through, "\n".join(map(repr, through))


@pytest.mark.parametrize("rules", [True, False], ids=["rules", "norules"])
def test_everyday_commands_stay_allowed(world, rules: bool) -> None:  # type: ignore[no-untyped-def]
    pc = world("default", rules)
    asked = [(c, bash(pc, c).reason) for c in CONTROLS if bash(pc, c).behavior != "allow"]
    assert not asked, "\n".join(repr(a) for a in asked)


def test_plan_and_dont_ask_allow_the_everyday_read_only_commands(world) -> None:  # type: ignore[no-untyped-def]
    for mode in ("plan", "dontAsk"):
        pc = world(mode, False)
        assert bash(pc, "git log --oneline && ls src | wc -l").behavior == "allow"


def test_attacks_are_real(tmp_path: Path) -> None:
    """Every exec/write row that mentions P creates P when real bash runs it (or is known not to
    be runnable here, listed below with the reason)."""
    pc = context(tmp_path, mode="default")
    project = Path(pc.project_dir)
    furnish(project, trapped=True)
    skipped = {
        "npm run test --node-options='--require ./x.js'",  # needs npm and a package
        "npm run test --script-shell=./x.sh",
        "npm run test -c 'touch P'",
        "npm run test --call='touch P'",
        "NODE_OPTIONS='--require ./x' npm run test",
        "npm_config_script_shell=./x npm run test",
        "echo hi > package.json && npm run test",
        "git --exec-path=. status",
        "git diff --ext-diff",
        "git diff --textconv",
        "git -p log",
        "GIT_PAGER='touch P' git status",
        "rg --pre ./x pat",
        "sort --compress-program=./x README.md",
        "date -s 2020-01-01",
        "man -P 'touch P' ls",
        "less README.md",
        "tar --to-command='touch P' -xf x.tar",
        "find . -delete",
        "sed -i s/a/b/ README.md",
        "FOO=1 git status",
        "xargs -a README.md touch",
        "echo hi > .git/hooks/pre-commit",
        "git config core.fsmonitor 'touch P'",
        "uniq README.md P",
        "cd sub/bare && git log",
        "echo hi | tee P",
        "tree -o P",  # tree is not installed everywhere
    }
    failed = []
    for _, command, kind in ROWS:
        if kind not in SENTINEL_KINDS or command in skipped or "P" not in command:
            continue
        sentinel = project / "P"
        for target in (sentinel, project / "sub" / "bare" / "P"):
            target.unlink(missing_ok=True)
        subprocess.run(
            ["bash", "-c", command], cwd=project, env=_GIT_ENV, capture_output=True, timeout=10
        )
        made = sentinel.exists() or (project / "sub" / "bare" / "P").exists()
        if not made:
            failed.append(command)
    assert not failed, failed


TOOL_ROWS = [
    ("Read", {"file_path": "deep/in/../.env"}, "deny"),
    ("Read", {"file_path": "deep/in/../deep/in/../.env"}, "deny"),
    ("Grep", {"pattern": "S", "path": "deep/in/../secrets"}, "deny"),
    ("Glob", {"pattern": "*", "path": "deep/in/../secrets"}, "deny"),
    ("Read", {"file_path": "out/../outside.txt"}, "noallow"),
    ("Write", {"file_path": "ghost/../hook"}, "noallow"),
    ("Edit", {"file_path": "ghost/../hook"}, "noallow"),
    ("Write", {"file_path": "out/../written.txt"}, "noallow"),
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "dontAsk"])
def test_tool_paths_resolve_dot_dot_after_a_link(world, mode: str) -> None:  # type: ignore[no-untyped-def]
    from tests.unit.permissions.helpers import decide

    pc = world(mode, True)
    for tool, inp, expected in TOOL_ROWS:
        d = decide(pc, tool, inp)
        if expected == "deny":
            assert d.behavior == "deny", (tool, inp, d.reason)
        else:
            assert d.behavior != "allow", (tool, inp, d.reason)


@pytest.mark.parametrize("mode", MODES)
def test_bypass_round_rows(world, mode: str) -> None:  # type: ignore[no-untyped-def]
    # With deny rules, bypassPermissions denies what it cannot check against them; no other mode
    # allows these rows.
    pc = world(mode, True)
    through = []
    for klass, command, _kind in BYPASS_LEAKS + BYPASS_CODE:
        d = bash(pc, command)
        if mode == "bypassPermissions":
            bad = d.behavior != "deny"
        else:  # elsewhere an explicit allow rule (`Bash(tar:*)`) is the user's own decision
            bad = d.behavior == "allow" and not (d.reason and d.reason.kind == "rule")
        if bad:
            through.append((klass, command, d.behavior, d.reason and d.reason.text))
    assert not through, "\n".join(map(repr, through))


@pytest.mark.parametrize("rules", [True, False], ids=["rules", "norules"])
def test_bypass_with_deny_rules_still_runs_everyday_commands(world, rules: bool) -> None:  # type: ignore[no-untyped-def]
    pc = world("bypassPermissions", rules)
    extra = ["mkdir -p build && touch build/x", "npm --version", "git add -A && git commit -m x",
             "git checkout -b topic && git status", "cd src && git status", "ls *.py"]  # fmt: skip
    denied = [(c, bash(pc, c).reason) for c in CONTROLS + extra if bash(pc, c).behavior != "allow"]
    assert not denied, "\n".join(repr(a) for a in denied)


@pytest.mark.parametrize("rules", [True, False], ids=["rules", "norules"])
@pytest.mark.parametrize("mode", MODES)
def test_process_secrets_are_denied_everywhere(
    world, mode: str, rules: bool, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    pc = world(mode, rules)
    allow_all = context(tmp_path, allow=("Bash", "Bash(cat:*)", "Read"), mode=mode)
    through = []
    for c in PROC:
        for p in (pc, allow_all):
            d = bash(p, c)
            if d.behavior != "deny":
                through.append((c, d.behavior, d.reason and d.reason.text))
    for path in ("/proc/self/environ", "/proc/1/environ", "/proc/thread-self/environ"):
        for p in (pc, allow_all):
            d = decide(p, "Read", {"file_path": path})
            if d.behavior != "deny":
                through.append((path, d.behavior, d.reason and d.reason.text))
    d = decide(allow_all, "Grep", {"pattern": "KEY", "path": "/proc"})
    if d.behavior != "deny":
        through.append(("Grep /proc", d.behavior, d.reason and d.reason.text))
    assert not through, "\n".join(map(repr, through))


@pytest.mark.parametrize("mode", MODES)
def test_git_after_a_config_change_is_never_auto_allowed(world, mode: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pc = world(mode, True)
    allow_git = context(tmp_path / "a", allow=("Bash(git:*)", "Bash(git config:*)"), mode=mode)
    deny_rm = context(tmp_path / "d", deny=("Bash(rm:*)",), mode=mode)
    through = []
    for c in GIT_TOCTOU:
        for p in (pc, allow_git, deny_rm):
            d = bash(p, c)
            if mode == "bypassPermissions":
                bad = p is deny_rm and d.behavior != "deny"
            else:
                bad = d.behavior == "allow"
            if bad:
                through.append((c, d.behavior, d.reason and d.reason.text))
    assert not through, "\n".join(map(repr, through))
    # Reading config does not taint: these stay allowed by a git rule.
    for c in ("git config --get user.name && git status", "git config -l && git log -1"):
        if mode != "plan":
            assert bash(allow_git, c).behavior == "allow", c
