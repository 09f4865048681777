"""The fourth black-box attack's classes: options getopt reads in spellings the data did not list
(abbreviated long options, short clusters, old-style tar), and options that run a program.

Every row is proven real first (bash runs it in a fresh repository and the victim is gone), then
judged: with `Bash(rm:*)` denied, bypassPermissions must deny it, and no mode may auto-allow it,
not even with allow rules naming the outer program.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.permissions.helpers import bash, context, decide, make_env

ROOT = Path(__file__).resolve().parents[3]

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")

# Class 1: long options abbreviated, short options clustered. Each deletes V.
ABBREVIATED = [
    "env --un ls rm V",
    "env --s='rm V'",
    "env --split-s='rm V'",
    "env -vS'rm V'",
    "env -iu ls rm V",
    "env -vu ls rm V",
    "timeout 5 env --s='rm V'",
    "nice env -vS'rm V'",
    "git ls-remote --upload-p='rm V;:' . >/dev/null 2>&1; true",
    "git fetch -q --upl='rm V;:' . 2>/dev/null; true",
    "git fetch -q --upload-pac='rm V;:' . 2>/dev/null; true",
    "git push -q --exe='rm V;:' . HEAD:refs/heads/y 2>/dev/null; true",
    "git clone -q -u 'rm V;:' . c1 2>/dev/null; true",
    "git clone -q '-urm V;:' . c2 2>/dev/null; true",
    "git clone -qu 'rm V;:' . c3 2>/dev/null; true",
    "git clone -q --upload-p='rm V;:' . c4 2>/dev/null; true",
    "git -C . clone -u 'rm V;:' . c5 2>/dev/null; true",
]
# Class 2: options that run a program (split --filter, old-style tar, clone --template).
RUNS_PROGRAM = [
    "split --filter='rm V' README.md",
    "split --fil='rm V' README.md",
    "split -n1 --filter 'rm V' README.md",
    "tar cIf 'sh -c \"rm V; cat\"' t.tar README.md",
    "tar cfI t2.tar 'sh -c \"rm V; cat\"' README.md",
    "mkdir -p tpl/hooks && printf '#!/bin/sh\\nrm ../V\\n' > tpl/hooks/post-checkout"
    " && chmod +x tpl/hooks/post-checkout && git clone -q --template=tpl . c6",
]
ALLOW = ("Bash(env:*)", "Bash(git:*)", "Bash(split:*)", "Bash(tar:*)", "Bash(timeout:*)",
         "Bash(nice:*)", "Bash(mkdir:*)", "Bash(printf:*)", "Bash(chmod:*)", "Bash(true)")  # fmt: skip


def _repo(tmp: Path) -> Path:
    project = tmp / "proj"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# demo\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "README.md"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=project, check=True)
    return project


@pytest.mark.parametrize("command", ABBREVIATED + RUNS_PROGRAM)
def test_the_rows_are_real(tmp_path: Path, command: str) -> None:
    project = _repo(tmp_path)
    (project / "V").write_text("victim\n")
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30)
    assert not (project / "V").exists(), command


@pytest.mark.parametrize("mode", MODES)
def test_no_mode_lets_them_run_rm(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path / mode, allow=ALLOW, deny=("Bash(rm:*)",), mode=mode)
    bad = []
    for command in ABBREVIATED + RUNS_PROGRAM:
        d = bash(pc, command)
        if (mode == "bypassPermissions" and d.behavior != "deny") or d.behavior == "allow":
            bad.append((command, d.behavior, d.reason and d.reason.text))
    assert not bad, "\n".join(map(repr, bad))


def test_the_full_spellings_of_harmless_options_still_run(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=ALLOW, deny=("Bash(rm:*)",), mode="bypassPermissions")
    for command in ("env -u HOME ls", "env --unset=HOME ls", "split -n2 README.md",
                    "tar cf t.tar README.md", "tar -cf t.tar README.md", "git status"):  # fmt: skip
        assert bash(pc, command).behavior == "allow", command


# Class 3: with a denied file tracked, these print its content under no path a Read rule sees.
TRACKED_REVEALS = [
    "git diff",
    "git diff HEAD~1",
    "git diff HEAD~1 HEAD",
    "git diff --cached",
    "git diff --word-diff",
    "git diff --stat -p HEAD~1",
    "git status -v",
    "git status -vv",
    "git diff-tree -p HEAD",
]


def _tracked_secret(tmp: Path) -> Path:
    project = _repo(tmp)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    (project / ".env").write_text("SECRET=envleak_XYZ\n")
    subprocess.run([*git, "add", "-f", ".env"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "oops"], cwd=project, check=True)
    with (project / ".env").open("a") as fh:
        fh.write("MORE=envleak_XYZ\n")
    subprocess.run([*git, "add", ".env"], cwd=project, check=True)
    with (project / ".env").open("a") as fh:
        fh.write("EVEN=envleak_XYZ\n")
    return project


@pytest.mark.parametrize("command", TRACKED_REVEALS)
def test_tracked_reveals_are_real(tmp_path: Path, command: str) -> None:
    project = _tracked_secret(tmp_path)
    done = subprocess.run(
        ["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=30
    )
    assert "envleak_XYZ" in done.stdout, command


@pytest.mark.parametrize("mode", MODES)
def test_git_diff_asks_under_a_read_deny(tmp_path: Path, mode: str) -> None:
    allow = ("Bash(git diff:*)", "Bash(git status:*)", "Bash(git diff-tree:*)")
    pc = context(tmp_path / mode, allow=allow, deny=("Read(./.env)",), mode=mode)
    bad = []
    for command in TRACKED_REVEALS:
        d = bash(pc, command)
        if (mode == "bypassPermissions" and d.behavior != "deny") or d.behavior == "allow":
            bad.append((command, d.behavior))
    assert not bad, bad
    # Names only, or a pathspec the path checks see, stay allowed.
    if mode != "plan":
        for command in ("git diff --stat", "git diff --name-only HEAD~1", "git diff -- src",
                        "git status", "git status --short"):  # fmt: skip
            assert bash(pc, command).behavior == "allow", (mode, command)
        assert bash(pc, "git diff -- .env").behavior != "allow"


def test_git_diff_without_read_deny_rules_stays_allowed(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Bash(rm:*)",))
    for command in ("git diff", "git diff HEAD~1", "git diff --cached", "git status -v"):
        assert bash(pc, command).behavior == "allow", command


def test_end_to_end_in_bypass(tmp_path: Path) -> None:
    """The real `lathe -p`, bypassPermissions with `Bash(rm:*)` and `Read(./.env)` denied: one
    call of each class; V must survive and the tracked .env must not be printed."""
    project = _tracked_secret(tmp_path)
    (project / "V").write_text("victim\n")
    commands = [
        "env --s='rm V'",
        "env -iu ls rm V",
        "git clone -qu 'rm V;:' . c1 2>/dev/null; true",
        "split --fil='rm V' README.md",
        "tar cIf 'sh -c \"rm V; cat\"' t.tar README.md",
        "git diff HEAD~1",
        "git status -v",
        "mkdir made",
    ]
    turns: list[dict[str, object]] = [
        {"blocks": [{"type": "tool_use", "name": "Bash", "input": {"command": c}, "id": f"t{i}"}]}
        for i, c in enumerate(commands)
    ]
    turns.append({"blocks": [{"type": "text", "text": "done"}]})
    script = tmp_path / "scenario.json"
    script.write_text(json.dumps({"turns": turns}))
    env = {**os.environ, **make_env(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("ANTHROPIC_API_KEY", None)
    args = ["-p", "go", "--model-script", str(script), "--output-format", "json"]
    args += ["--permission-mode", "bypassPermissions", "--disallowedTools", "Bash(rm:*)"]
    args += ["--disallowedTools", "Read(./.env)"]
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert (project / "V").exists(), proc.stdout[-3000:]
    assert "envleak_XYZ" not in proc.stdout, proc.stdout[-3000:]
    assert (project / "made").is_dir(), proc.stdout[-3000:]  # bypass still runs the rest
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    denied = [d["tool_use_id"] for d in result["permission_denials"]]
    assert denied == [f"t{i}" for i in range(len(commands) - 1)], result["permission_denials"]


# Class 4: a symbolic link made in the same command, then read through.
LINK_THEN_READ = [
    "ln -s . l && cat l/.env",
    "mkdir x && ln -s .. x/up && cat x/up/.env",
    "ln -sf . l2; sed -n p l2/.env",
    'cp -s "$PWD/.env" e2 && cat e2',
    "ln --sym . l3 && cat l3/.env",
]


@pytest.mark.parametrize("command", LINK_THEN_READ)
def test_link_then_read_rows_are_real(tmp_path: Path, command: str) -> None:
    project = _tracked_secret(tmp_path)
    done = subprocess.run(
        ["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=30
    )
    assert "envleak_XYZ" in done.stdout, command


@pytest.mark.parametrize("mode", MODES)
def test_a_new_link_makes_later_paths_unknowable(tmp_path: Path, mode: str) -> None:
    allow = ("Bash(ln:*)", "Bash(cat:*)", "Bash(mkdir:*)", "Bash(sed:*)", "Bash(cp:*)")
    pc = context(tmp_path / mode, allow=allow, deny=("Read(./.env)",), mode=mode)
    for command in LINK_THEN_READ:
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            assert d.behavior == "deny", command
    if mode != "plan":
        assert bash(pc, "ln -s README.md r").behavior == "allow"  # the link alone is checked
    free = context(tmp_path / f"{mode}-free", mode="bypassPermissions")
    assert bash(free, LINK_THEN_READ[0]).behavior == "allow"  # no rule a link could escape


# Class 5: a hard link made before (by the user, another tool, a tar member) to a denied file.
@pytest.mark.parametrize("mode", MODES)
def test_a_hard_link_to_a_denied_file_is_that_file(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path / mode, deny=("Read(./.env)", "Read(./secrets/**)"), mode=mode)
    project = Path(pc.project_dir)
    (project / "secrets").mkdir()
    (project / "secrets" / "k.txt").write_text("secretleak_ABC\n")
    os.link(project / ".env", project / "hl_env")
    os.link(project / "secrets" / "k.txt", project / "hl_key")
    (project / "plain").write_text("x\n")
    os.link(project / "plain", project / "plain2")  # a hard link to a file no rule names
    done = subprocess.run(["cat", "hl_env", "hl_key"], cwd=project, capture_output=True, text=True)
    assert "SECRET=1" in done.stdout and "secretleak_ABC" in done.stdout  # the attack is real
    for name in ("hl_env", "hl_key"):
        assert decide(pc, "Read", {"file_path": str(project / name)}).behavior == "deny", name
        assert bash(pc, f"cat {name}").behavior == "deny", name
        assert bash(pc, f"paste {name}").behavior == "deny", name
    if mode != "plan":
        assert decide(pc, "Read", {"file_path": str(project / "plain2")}).behavior == "allow"


# Class 6: archive extraction writes the paths its members name.
EXTRACTS = [
    "tar xf evil.tar",
    "tar -xf evil.tar",
    "tar --extract -f evil.tar",
    "tar -x -f evil.tar",
    "unzip -o -q evil.zip",
    "cpio -id < evil.cpio",
]


def _evil_archives(project: Path) -> None:
    stage = project.parent / "stage"
    (stage / ".git" / "hooks").mkdir(parents=True)
    (stage / ".git" / "hooks" / "evil-x").write_text("pwned\n")
    member = ".git/hooks/evil-x"
    subprocess.run(["tar", "cf", str(project / "evil.tar"), member], cwd=stage, check=True)
    if shutil.which("zip"):
        subprocess.run(["zip", "-q", str(project / "evil.zip"), member], cwd=stage, check=True)
    if shutil.which("cpio"):
        cpio = subprocess.run(["cpio", "-o", "--quiet"], cwd=stage, input=member.encode(),
                              capture_output=True, check=True)  # fmt: skip
        (project / "evil.cpio").write_bytes(cpio.stdout)


@pytest.mark.parametrize("command", EXTRACTS)
def test_extraction_rows_are_real(tmp_path: Path, command: str) -> None:
    needs = ("zip", "unzip") if "unzip" in command else ("cpio",) if "cpio" in command else ()
    if not all(shutil.which(n) for n in needs):
        pytest.skip(f"no {needs} here")
    project = _repo(tmp_path)
    _evil_archives(project)
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30)
    assert (project / ".git" / "hooks" / "evil-x").exists(), command


@pytest.mark.parametrize("mode", MODES)
def test_extraction_is_never_auto_allowed(tmp_path: Path, mode: str) -> None:
    allow = ("Bash(tar:*)", "Bash(unzip:*)", "Bash(cpio:*)")
    pc = context(tmp_path / mode, allow=allow, deny=("Edit(./.git/**)",), mode=mode)
    for command in EXTRACTS:
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            assert d.behavior == "deny", command
    if mode != "plan":
        for command in ("tar cf out.tar README.md", "tar tf out.tar", "unzip -l a.zip"):
            assert bash(pc, command).behavior == "allow", (mode, command)


# Classes 7 and 8: config files outside the project that run programs or hold the deny rules.
@pytest.mark.parametrize("mode", MODES)
def test_user_git_config_and_lathe_settings_are_protected(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path / mode, deny=("Bash(rm:*)",), mode=mode)
    home = Path(pc.home)
    config_dir = tmp_path / "cfgdir"
    monkeypatch.setenv("LATHE_CONFIG_DIR", str(config_dir))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "g.conf"))
    targets = [
        home / ".config" / "git" / "config",
        home / ".config" / "lathe" / "settings.toml",
        config_dir / "settings.toml",
        home / ".claude" / "settings.json",
        tmp_path / "g.conf",
        Path("/etc/gitconfig"),
    ]
    for target in targets:
        d = decide(pc, "Write", {"file_path": str(target), "content": "# gone\n"})
        assert d.behavior != "allow", (mode, target)
        d = bash(pc, f"printf '[core]\\n' > {target}")
        assert d.behavior != "allow", (mode, target)
    if mode in ("acceptEdits", "bypassPermissions"):
        plain = Path(pc.project_dir) / "notes.toml"
        assert decide(pc, "Write", {"file_path": str(plain), "content": "x"}).behavior == "allow"


def test_git_configs_outside_the_repository_are_read(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    project, home = Path(pc.project_dir), Path(pc.home)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    assert bash(pc, "git status").behavior == "allow"
    xdg = home / ".config" / "git" / "config"
    xdg.parent.mkdir(parents=True)
    xdg.write_text('[core]\n\tfsmonitor = "rm V; false"\n')
    assert bash(pc, "git status").behavior == "deny"
    xdg.write_text("[credential]\n\thelper = store\n[core]\n\teditor = vim\n")
    assert bash(pc, "git status").behavior == "allow"  # what users commonly set stays usable
    assert bash(pc, "git config --global core.fsmonitor 'rm V'").behavior == "deny"
    # A submodule's config: `git status` recurses into it, in every mode.
    module = project / ".git" / "modules" / "sub"
    module.mkdir(parents=True)
    (module / "config").write_text('[core]\n\tfsmonitor = "touch P"\n')
    assert bash(pc, "git status").behavior == "deny"
    default = context(tmp_path / "d", mode="default")
    dproject = Path(default.project_dir)
    subprocess.run(["git", "init", "-q"], cwd=dproject, check=True)
    assert bash(default, "git status").behavior == "allow"
    (dproject / ".git" / "modules" / "sub").mkdir(parents=True)
    (dproject / ".git" / "modules" / "sub" / "config").write_text("[core]\n\tfsmonitor = x\n")
    assert bash(default, "git status").behavior != "allow"


# Class 9: a glob lists the names in its folder, as `ls` of the folder does.
def test_a_glob_outside_the_working_folder_is_a_listing(tmp_path: Path) -> None:
    pc = context(tmp_path, mode="default")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private-name").write_text("x\n")
    done = subprocess.run(["bash", "-c", f"echo {outside}/*"], capture_output=True, text=True)
    assert "private-name" in done.stdout  # the attack is real
    assert bash(pc, f"ls {outside}").behavior != "allow"
    for command in (f"echo {outside}/*", "echo ~/*", f"printf '%s\\n' {outside}/*"):
        assert bash(pc, command).behavior != "allow", command
    for command in ("echo *.md", "echo src/*", "echo hi"):
        assert bash(pc, command).behavior == "allow", command
