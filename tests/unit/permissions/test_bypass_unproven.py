"""The third black-box attack's classes: programs that start other programs under
bypassPermissions deny rules, and file-list options under Read deny rules.

The rows are proven real first (bash runs each and the sentinel appears, or the secret is printed),
then judged: with a Bash deny rule bypassPermissions must deny every wrapper row, no mode may
auto-allow a list row under a Read deny rule (even with `Bash(tar:*)`-style allow rules), and
without deny rules bypassPermissions stays fully permissive.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from app.permissions import PermissionContext
from tests.unit.permissions.helpers import bash, context
from tools.shell.optiondata import MODELLED_WRAPPERS, RUNNERS, RUNS_NOTHING_ELSE
from tools.shell.risk import list_read_risk

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
MARKER = "LEAK-5ec7e7"

# Each creates P through a program the analysis does not model (deny rule: `Bash(touch:*)`).
WRAPPERS = [
    "prlimit --nofile=1024 touch P",
    "setpriv --inh-caps=-all touch P",
    "choom -n 0 -- touch P",
    "linux32 touch P",
    "linux64 touch P",
    "setarch x86_64 touch P",
    "x86_64 touch P",
    "i386 touch P",
    "ssh-agent touch P",
    "/lib64/ld-linux-x86-64.so.2 /usr/bin/touch P",
    "dbus-run-session -- touch P",
    "mkdir -p rp && printf '#!/bin/sh\\ntouch P\\n' > rp/a && chmod +x rp/a && run-parts rp",
    "cmake -E env touch P",
    "nice -n 1 setarch x86_64 touch P",
    "timeout 5 linux64 touch P",
    "echo $(prlimit touch P)",
    "find . -maxdepth 0 -exec prlimit touch P \\;",
    "sh -c 'setarch x86_64 touch P'",
]
# Judged only (running them here would leave a server or needs a display).
JUDGED_ONLY = [
    "tmux new -d 'touch P'",
    "tmux -L x new-session -d touch P",
    "screen -dm touch P",
    "gpg-agent --daemon touch P",
    "xvfb-run touch P",
    "sudo prlimit touch P",
    "env prlimit touch P",
    "xargs -n 1 prlimit touch < list",
    "watch -n 1 'touch P'",
    "./bin/touch P",
    "perf stat touch P",
    "busybox touch P",
]
# Each prints the content of secrets/key.txt through a file of names (Read deny: secrets/**).
LISTS = [
    "sort --files0-from=list0",
    "sort --files0-from list0",
    "sort --files0=list0",
    "sort --files0-from=- < list0",
    "tar -cf - -T list | tar -xOf -",
    "tar -c --files-from=list -f - | tar -xOf -",
    "tar -c --files-fr=list -f - | tar -xOf -",
    "tar cfT - list | tar -xOf -",
    "tar -cvT list -f - | tar -xOf -",
    "zip -q z.zip -@ < list && unzip -p z.zip",
    "xargs -a list cat",
    "xargs --arg-file=list cat",
    "xargs cat < list",
    "grep -o -f secrets/key.txt secrets/key.json",
    "grep -o --file=secrets/key.txt secrets/key.json",
    "curl -s -d @secrets/key.txt file:///dev/null; cat secrets/key.txt",
    "xz -c --files=list | xz -dc",
    "xz -c --files0=list0 | xz -dc",
    "zstd -q -c --filelist list | zstd -dc",
]
# Rows whose program may be missing on some machine (they prove nothing there, but still judge).
OPTIONAL = {"dbus-run-session", "cmake", "zip", "curl", "linux32", "i386", "xz", "zstd"}
ALLOW = ("Bash(tar:*)", "Bash(sort:*)", "Bash(zip:*)", "Bash(xargs:*)", "Bash(cat:*)",
         "Bash(grep:*)", "Bash(curl:*)", "Bash(wc:*)", "Bash(du:*)", "Bash(xz:*)",
         "Bash(zstd:*)")  # fmt: skip
EVERYDAY = [
    "ls -la",
    "git status",
    "cd src && git status",
    "mkdir -p build && touch build/x",
    "cp README.md R2.md",
    "sed -i s/a/b/ README.md",
    "sed -i.bak -e 's/a/b/g' README.md",
    "tar czf /dev/null src",
    "timeout 5 ls",
    "cat README.md | head -1",
    "echo hi > notes.txt",
    "python3 --version",
    "npm --version",
    "git add -A && git commit -qm x",
]


def _project(tmp: Path) -> Path:
    project = tmp / "proj"
    (project / "secrets").mkdir(parents=True)
    (project / "src").mkdir()
    (project / "secrets" / "key.txt").write_text(f"{MARKER}\n")
    (project / "secrets" / "key.json").write_text(f'"{MARKER}"\n')
    (project / "README.md").write_text("# demo\n")
    (project / "list0").write_bytes(b"secrets/key.txt\0")
    (project / "list").write_text("secrets/key.txt\n")
    return project


def _available(command: str) -> bool:
    words = command.replace("$(", " ").replace("'", " ").split()
    return all(shutil.which(w) for w in words if w in OPTIONAL)


def test_the_rows_are_real(tmp_path: Path) -> None:
    project = _project(tmp_path)
    missing, checked = [], 0
    for command in WRAPPERS:
        if not _available(command):
            continue
        (project / "P").unlink(missing_ok=True)
        subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=20)
        checked += 1
        if not (project / "P").exists():
            missing.append(command)
    for command in LISTS:
        if not _available(command):
            continue
        done = subprocess.run(
            ["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=20
        )
        checked += 1
        if MARKER not in done.stdout:
            missing.append(command)
    assert not missing, missing
    assert checked >= 26  # most programs exist on the machines this runs on


def _pc(tmp: Path, mode: str, allow: tuple[str, ...], deny: tuple[str, ...]) -> PermissionContext:
    pc = context(tmp / mode, allow=allow, deny=deny, mode=mode)
    project = Path(pc.project_dir)
    (project / "secrets").mkdir(exist_ok=True)
    (project / "secrets" / "key.txt").write_text(f"{MARKER}\n")
    return pc


@pytest.mark.parametrize("mode", MODES)
def test_wrappers_never_run_a_denied_program(tmp_path: Path, mode: str) -> None:
    pc = _pc(tmp_path, mode, (), ("Bash(touch:*)",))
    bad = []
    for command in WRAPPERS + JUDGED_ONLY:
        d = bash(pc, command)
        if (mode == "bypassPermissions" and d.behavior != "deny") or d.behavior == "allow":
            bad.append((command, d.behavior, d.reason and d.reason.text))
    assert not bad, "\n".join(map(repr, bad))


@pytest.mark.parametrize("mode", MODES)
def test_file_lists_are_never_auto_allowed_under_a_read_deny(tmp_path: Path, mode: str) -> None:
    pc = _pc(tmp_path, mode, ALLOW, ("Read(./secrets/**)",))
    bad = []
    for command in LISTS:
        d = bash(pc, command)
        if (mode == "bypassPermissions" and d.behavior != "deny") or d.behavior == "allow":
            bad.append((command, d.behavior, d.reason and d.reason.text))
    assert not bad, "\n".join(map(repr, bad))
    # The same programs used on named files stay covered by their rules.
    controls = ("sort README.md", "cat README.md")
    for command in controls if mode == "plan" else ("tar -cf /dev/null src", *controls):
        assert bash(pc, command).behavior == "allow", command


def test_bypass_without_deny_rules_stays_permissive(tmp_path: Path) -> None:
    pc = _pc(tmp_path, "bypassPermissions", (), ())
    refused = [c for c in WRAPPERS + LISTS + EVERYDAY if bash(pc, c).behavior != "allow"]
    assert not refused, refused


def test_bypass_with_deny_rules_keeps_everyday_commands(tmp_path: Path) -> None:
    pc = _pc(tmp_path, "bypassPermissions", (), ("Bash(rm:*)", "Read(./secrets/**)"))
    refused = [(c, bash(pc, c).reason) for c in EVERYDAY if bash(pc, c).behavior != "allow"]
    assert not refused, "\n".join(map(repr, refused))
    # What may run project code is refused there, with the reason named (see CHANGELOG.md).
    for command in (
        "python3 s.py",
        "npm test",
        "make",
        "pytest -q",
        "docker ps",
        "sed -i 1e README.md",
        "sed -i 's/a/id/e' README.md",
    ):
        d = bash(pc, command)
        assert d.behavior == "deny" and d.reason is not None, command
        assert "cannot be checked against the Bash deny rules" in d.reason.text, command


def test_list_read_risk_reads_options_as_getopt_does() -> None:
    for words in (
        ("tar", "-cvT", "l"),
        ("tar", "cfT", "-", "l"),
        ("tar", "--files-from=l"),
        ("sort", "--files0=l"),
        ("wc", "--files0-from", "l"),
        ("zip", "-r@", "z.zip"),
        ("cpio", "-ov"),
        ("xargs", "-a", "l", "cat"),
        ("sha256sum", "-c", "sums"),
        ("git", "add", "--pathspec-from-file=l"),
    ):
        assert list_read_risk(words), words
    for words in (
        ("tar", "-cf", "x.tar", "src"),
        ("sort", "-u", "f"),
        ("cpio", "-i"),
        ("zip", "-r", "z", "d"),
    ):
        assert not list_read_risk(words), words


def test_the_allowlist_holds_no_known_runner() -> None:
    assert not (RUNS_NOTHING_ELSE & RUNNERS)
    assert not (RUNS_NOTHING_ELSE & MODELLED_WRAPPERS)
    for name in ("python3", "bash", "sh", "make", "npm", "prlimit", "setarch", "tmux", "sudo"):
        assert name not in RUNS_NOTHING_ELSE, name


def test_bypass_deny_rules_hold_through_the_repository_git_uses(tmp_path: Path) -> None:
    pc = _pc(tmp_path, "bypassPermissions", (), ("Bash(touch:*)",))
    project = Path(pc.project_dir)
    shutil.rmtree(project / ".git", ignore_errors=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".git" / "hooks").mkdir(exist_ok=True)
    (project / "src").mkdir(exist_ok=True)
    for c in ("git status", "cd src && git status", "git -C src log", "git log | head"):
        assert bash(pc, c).behavior == "allow", c
    for c in ("cd $X && git status", "cd && git status", "git --git-dir=x status"):
        assert bash(pc, c).behavior == "deny", c
    subprocess.run(["git", "init", "-q", "--bare", "sub/bare"], cwd=project, check=True)
    for c in ("cd sub/bare && git log", "git -C sub/bare log"):
        assert bash(pc, c).behavior == "deny", c
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch P\n")
    hook.chmod(0o755)
    assert bash(pc, "git commit -qm x").behavior == "deny"
    hook.unlink()
    assert bash(pc, "git commit -qm x").behavior == "allow"
    subprocess.run(["git", "config", "core.fsmonitor", "touch P"], cwd=project, check=True)
    done = subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert done.returncode == 0 and (project / "P").exists()  # the trap is real
    assert bash(pc, "git status").behavior == "deny"


def test_bypass_read_deny_alone_refuses_programs_that_hide_a_reader(tmp_path: Path) -> None:
    pc = _pc(tmp_path, "bypassPermissions", (), ("Read(./secrets/**)",))
    key = Path(pc.project_dir) / "secrets" / "key.txt"
    for c in (
        "setarch x86_64 git show HEAD:secrets/key.txt",
        "prlimit tar -cf - -T list",
        "tmux new -d 'cat secrets/key.txt > o'",
        "make",
        f"curl file://{key}",
        f"curl -s FILE://{key}",
        f"curl -d @{key} http://127.0.0.1:9/",
    ):
        assert bash(pc, c).behavior == "deny", c
    for c in ("ls -la", "cat README.md", "mkdir -p b && cp README.md b/", "timeout 5 ls"):
        assert bash(pc, c).behavior == "allow", c
