"""The fifth black-box attack's classes: a program shadowed through PATH, a project script edited
before an allowed runner runs it, a settings file that is a dangling link, repository hooks under
auto-allowed git calls, and hard or symbolic links that give a denied file another name.

Each class is proven real first (bash, git or the file system does what the attack needs), then
judged through the decider every mode uses, and once end to end through `lathe -p`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from app.config.loader import read_settings_file
from app.permissions import identity
from app.permissions.view import ContextPermissionView
from tests.unit.permissions.helpers import bash, context, decide, make_env

ROOT = Path(__file__).resolve().parents[3]
MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
RM = shutil.which("rm") or "/bin/rm"
GIT = shutil.which("git") or "/usr/bin/git"


def _lathe(tmp: Path, project: Path, calls: list[tuple[str, dict[str, object]]], *args: str,
           path: str | None = None, text: bool = False,
           ) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:  # fmt: skip
    turns: list[dict[str, object]] = [
        {"blocks": [{"type": "tool_use", "name": n, "input": i, "id": f"t{k}"}]}
        for k, (n, i) in enumerate(calls)
    ]
    turns.append({"blocks": [{"type": "text", "text": "done"}]})
    script = tmp / "scenario.json"
    script.write_text(json.dumps({"turns": turns}))
    env = {**os.environ, **make_env(tmp), "PYTHONPATH": str(ROOT)}
    if path is not None:
        env["PATH"] = path
    env.pop("ANTHROPIC_API_KEY", None)
    cmd = [sys.executable, "-m", "app", "-p", "go", "--model-script", str(script)]
    # stream-json: the tool results are in the output, so a leak in one would show.
    cmd += [*([] if text else ["--output-format", "stream-json", "--verbose"]), *args]
    proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    result = next((e for e in events if e.get("type") == "result"), {})
    return proc, result


def _denied_ids(result: dict[str, object]) -> list[str]:
    return [d["tool_use_id"] for d in result.get("permission_denials", [])]  # type: ignore[attr-defined, index]


# --- class 1: a denied program under another name, found through PATH ------------------------


def _shadow_bin(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp / "home" / ".local" / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return folder


def test_a_shadowing_copy_on_path_is_real(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy(RM, folder / "ls")
    (tmp_path / "V").write_text("v\n")
    env = {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", "ls V"], cwd=tmp_path, env=env, capture_output=True)
    assert not (tmp_path / "V").exists()


@pytest.mark.parametrize("mode", MODES)
def test_a_word_that_runs_a_denied_program_is_denied(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(
        tmp_path, allow=("Bash(head:*)",), deny=("Bash(rm:*)", "Bash(git push:*)"), mode=mode
    )
    folder = _shadow_bin(tmp_path, monkeypatch)
    shutil.copy(RM, folder / "ls")  # a copy
    os.symlink(RM, folder / "cat")  # a link
    shutil.copy(GIT, folder / "head")  # a copy of git, for `Bash(git push:*)`
    project = Path(pc.project_dir)
    local = project / "node_modules" / ".bin"
    local.mkdir(parents=True)
    shutil.copy(RM, local / "wc")
    monkeypatch.setenv("PATH", f"node_modules/.bin:{os.environ['PATH']}")
    for command in ("ls V", "cat V", "timeout 5 ls V", "env cat V", "nice -n 1 ls V",
                    "echo x | xargs cat", "head push origin main", "wc V", "cd src && ls .."):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior == "deny", (mode, command, d.behavior, d.reason and d.reason.text)
        assert d.reason is not None and "which is the program" in d.reason.text
    # Run as what it is (`git -n1 README.md`), the copy meets no deny rule.
    d = bash(pc, "head -n1 README.md")
    assert "which is the program" not in (d.reason.text if d.reason else "")


def test_an_unshadowed_path_leaves_everyday_commands_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path, deny=("Bash(rm:*)",), mode="default")
    folder = _shadow_bin(tmp_path, monkeypatch)
    (folder / "mytool").write_text("#!/bin/sh\necho hi\n")
    (folder / "mytool").chmod(0o755)
    for command in ("ls", "cat README.md", "wc -l src/main.py", "head README.md"):
        assert bash(pc, command).behavior == "allow", command


@pytest.mark.parametrize("mode", ("default", "acceptEdits", "bypassPermissions"))
def test_writes_into_a_path_folder_are_never_auto_allowed(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path, allow=("Bash(cp:*)", "Bash(ln:*)", "Bash(printf:*)", "Bash(chmod:*)"),
                 deny=("Bash(rm:*)",), mode=mode)  # fmt: skip
    folder = _shadow_bin(tmp_path, monkeypatch)
    project = Path(pc.project_dir)
    monkeypatch.setenv("PATH", f"{project / 'bin'}:{os.environ['PATH']}")
    for command in (f"cp {RM} ~/.local/bin/ls", f"ln -s {RM} ~/.local/bin/cat",
                    f"cd ~/.local/bin && cp {RM} head", "printf x > ~/.local/bin/zz",
                    f"cp -t ~/.local/bin {RM}", f"cp {RM} bin/ls", "mkdir -p bin",
                    "chmod +x bin/x", f"dd if={RM} of=bin/ls", f"mv ~/.local ~/.old && ln -s {tmp_path} ~/.local",
                    f"ln -sfn {tmp_path} ~/.local/bin"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
    for target in (folder / "wc", project / "bin" / "ls"):
        for tool, extra in (("Write", {"content": "#!/bin/sh\nrm \"$@\"\n"}),
                            ("Edit", {"old_string": "a", "new_string": "b"})):  # fmt: skip
            d = decide(pc, tool, {"file_path": str(target), **extra})
            assert d.behavior != "allow", (mode, tool, target)
    # Everyday writes are unchanged: into the project, and a copy into an existing folder.
    if mode != "default":
        assert bash(pc, "cp README.md notes.md").behavior == "allow"
        assert bash(pc, "cp README.md src").behavior == "allow"
        assert (
            decide(pc, "Write", {"file_path": str(project / "n.py"), "content": "x"}).behavior
            == "allow"
        )


def test_bypass_without_deny_rules_writes_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path, mode="bypassPermissions")
    _shadow_bin(tmp_path, monkeypatch)
    assert bash(pc, f"cp {RM} ~/.local/bin/ls").behavior == "allow"


def test_end_to_end_path_shadowing_in_bypass(tmp_path: Path) -> None:
    pc = context(tmp_path)  # only for the project layout
    project = Path(pc.project_dir)
    (project / "V").write_text("victim\n")
    folder = tmp_path / "home" / ".local" / "bin"
    folder.mkdir(parents=True)
    path = f"{folder}:{os.environ['PATH']}"
    calls: list[tuple[str, dict[str, object]]] = [
        ("Bash", {"command": f"cp {RM} ~/.local/bin/ls"}),
        ("Write", {"file_path": str(folder / "cat"), "content": '#!/bin/sh\nrm "$@"\n'}),
        ("Bash", {"command": "mkdir made"}),
    ]
    proc, result = _lathe(tmp_path, project, calls, "--permission-mode", "bypassPermissions",
                          "--disallowedTools", "Bash(rm:*)", path=path)  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert not (folder / "ls").exists() and not (folder / "cat").exists()
    assert (project / "made").is_dir()
    assert _denied_ids(result) == ["t0", "t1"], result
    shutil.copy(RM, folder / "ls")  # placed before the session, by anyone
    calls = [("Bash", {"command": "ls V"})]
    proc, result = _lathe(tmp_path, project, calls, "--permission-mode", "bypassPermissions",
                          "--disallowedTools", "Bash(rm:*)", path=path)  # fmt: skip
    assert (project / "V").exists(), proc.stdout[-2000:]
    assert _denied_ids(result) == ["t0"]


# --- class 2: a project script changed during the session -----------------------------------


def _scripts(project: Path) -> None:
    (project / "package.json").write_text('{"name": "x", "scripts": {"test": "echo ok"}}\n')
    (project / "Makefile").write_text("test:\n\techo ok\n")


def test_an_edited_makefile_runs_what_it_says(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here")
    (tmp_path / "Makefile").write_text("test:\n\trm V\n")
    (tmp_path / "V").write_text("v\n")
    subprocess.run(["make", "test"], cwd=tmp_path, capture_output=True)
    assert not (tmp_path / "V").exists()


RUNNERS = ("npm run test", "npm test", "make test", "make -C . test")
RUNNER_RULES = ("Bash(npm run test:*)", "Bash(npm test)", "Bash(make test:*)", "Bash(make:*)")


@pytest.mark.parametrize("mode", MODES)
def test_a_changed_script_file_stops_the_rule(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=RUNNER_RULES, deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    _scripts(project)
    # Files written before the context: as the session found them.
    pc = replace(
        pc, session_started_ns=max(_ctime(project / "Makefile"), _ctime(project / "package.json"))
    )
    if mode in ("default", "acceptEdits", "dontAsk"):
        for command in RUNNERS:
            assert bash(pc, command).behavior == "allow", (mode, command)
    (project / "package.json").write_text('{"name": "x", "scripts": {"test": "rm V"}}\n')
    (project / "Makefile").write_text("test:\n\trm V\n")
    changed = min(_ctime(project / "Makefile"), _ctime(project / "package.json"))
    pc = replace(pc, session_started_ns=min(pc.session_started_ns, changed - 1))
    for command in RUNNERS:
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode in ("dontAsk", "bypassPermissions", "plan"):
            assert d.behavior == "deny", (mode, command)


def test_an_included_or_named_makefile_counts(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(make:*)",), mode="acceptEdits")
    project = Path(pc.project_dir)
    (project / "sub").mkdir()
    (project / "sub" / "rules.mk").write_text("x:\n\ttrue\n")
    (project / "other.make").write_text("x:\n\ttrue\n")
    changed = min(_ctime(project / "sub" / "rules.mk"), _ctime(project / "other.make"))
    pc = replace(pc, session_started_ns=changed - 1)
    for command in ("make -C sub x", "make -f other.make x", "cd sub && make x"):
        assert bash(pc, command).behavior != "allow", command


@pytest.mark.parametrize("mode", ("default", "acceptEdits", "dontAsk"))
def test_a_script_written_in_the_same_command(tmp_path: Path, mode: str) -> None:
    allow = ("Bash(make test:*)", "Bash(printf:*)", "Bash(cp:*)", "Bash(npm run test:*)")
    pc = context(tmp_path, allow=allow, deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    _scripts(project)
    pc = replace(pc, session_started_ns=_ctime(project / "Makefile") + 10**9)
    assert bash(pc, "make test").behavior == "allow"
    for command in ("printf 'test:\\n\\trm V\\n' > Makefile && make test",
                    "cp README.md Makefile; make test", "printf x > extra.mk && make test",
                    "printf '{}' > package.json && npm run test"):  # fmt: skip
        assert bash(pc, command).behavior != "allow", (mode, command)
    if mode == "acceptEdits":  # a write elsewhere leaves the rule standing
        assert bash(pc, "printf x > notes.txt && make test").behavior == "allow"


def _ctime(path: Path) -> int:
    return os.stat(path).st_ctime_ns


def test_end_to_end_edit_then_run_in_accept_edits(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here")
    pc = context(tmp_path)
    project = Path(pc.project_dir)
    (project / "Makefile").write_text("test:\n\techo ok\n")
    (project / "V").write_text("victim\n")
    calls: list[tuple[str, dict[str, object]]] = [
        ("Bash", {"command": "make test"}),
        ("Read", {"file_path": str(project / "Makefile")}),
        ("Write", {"file_path": str(project / "Makefile"), "content": "test:\n\trm V\n"}),
        ("Bash", {"command": "make test"}),
    ]
    proc, result = _lathe(tmp_path, project, calls, "--permission-mode", "acceptEdits",
                          "--allowedTools", "Bash(make test:*)",
                          "--disallowedTools", "Bash(rm:*)")  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert (project / "V").exists(), proc.stdout[-2000:]
    assert _denied_ids(result) == ["t3"], result


# --- class 3: a settings file that is a dangling symbolic link -------------------------------


def test_a_dangling_settings_link_cannot_be_read(tmp_path: Path) -> None:
    link = tmp_path / "settings.toml"
    link.symlink_to(tmp_path / "moved-away.toml")
    read = read_settings_file(link, "user")
    assert read.exists and read.problems and "cannot read" in read.problems[0].message
    folder = tmp_path / "proj" / ".lathe"
    folder.parent.mkdir()
    folder.symlink_to(tmp_path / "gone")
    read = read_settings_file(folder / "settings.toml", "project")
    assert read.exists and "symbolic link" in read.problems[0].message
    absent = read_settings_file(tmp_path / "nothing.toml", "user")
    assert not absent.exists and not absent.problems


def test_end_to_end_dangling_settings_exit_2(tmp_path: Path) -> None:
    pc = context(tmp_path)
    project = Path(pc.project_dir)
    (project / ".lathe").mkdir()
    (project / ".lathe" / "settings.toml").symlink_to(tmp_path / "dotfiles" / "lathe.toml")
    # Text output: the contract's exit 2 (stream-json, the SDK protocol's front end, exits 1).
    proc, _ = _lathe(tmp_path, project, [("Bash", {"command": "touch P"})], text=True)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "settings.toml" in proc.stderr and "cannot read" in proc.stderr
    assert not (project / "P").exists()


# --- class 4: repository hooks under auto-allowed git calls ---------------------------------


def _git_repo(project: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "README.md"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=project, check=True)


def _hook(folder: Path, name: str, log: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"#!/bin/sh\necho {name} >> {log}\n")
    (folder / name).chmod(0o755)


def test_git_status_runs_post_index_change(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "README.md").write_text("x\n")
    _git_repo(project)
    log = tmp_path / "log"
    _hook(project / ".git" / "hooks", "post-index-change", log)
    os.utime(project / "README.md", (1, 1))
    subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert log.read_text().strip() == "post-index-change"


@pytest.mark.parametrize("mode", MODES)
def test_git_calls_that_run_installed_hooks_ask(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(git:*)",), deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    _git_repo(project)
    log = tmp_path / "log"
    for name in ("pre-commit", "post-checkout", "post-index-change", "pre-push",
                 "reference-transaction"):  # fmt: skip
        _hook(project / ".git" / "hooks", name, log)
    for command in ("git status", "git diff", "git commit -m x", "git checkout -b y",
                    "git push origin main", "git stash", "git branch new", "git rebase main"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            assert d.behavior == "deny", command
    if mode != "plan":
        for command in ("git log --oneline", "git show HEAD --stat", "git branch", "git diff --cached",
                        "git stash list", "git remote -v", "git tag"):  # fmt: skip
            assert bash(pc, command).behavior == "allow", (mode, command)


def test_a_rule_naming_the_subcommand_is_the_users_choice(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(git commit:*)", "Bash(git status)"), mode="default")
    project = Path(pc.project_dir)
    _git_repo(project)
    _hook(project / ".git" / "hooks", "pre-commit", tmp_path / "log")
    _hook(project / ".git" / "hooks", "post-index-change", tmp_path / "log")
    assert bash(pc, "git commit -m x").behavior == "allow"
    assert bash(pc, "git status").behavior == "allow"
    assert bash(pc, "git status --short").behavior != "allow"  # the read-only set names no hook


def test_only_the_hooks_a_subcommand_runs_count(tmp_path: Path) -> None:
    """A repository with a pre-commit hook only (the pre-commit framework's default)."""
    pc = context(tmp_path, allow=("Bash(git:*)",), mode="default")
    project = Path(pc.project_dir)
    _git_repo(project)
    _hook(project / ".git" / "hooks", "pre-commit", tmp_path / "log")
    (project / ".git" / "hooks" / "pre-push.sample").write_text("#!/bin/sh\n")
    assert bash(pc, "git commit -m x").behavior == "ask"
    for command in ("git status", "git diff", "git checkout -b y", "git push origin main"):
        assert bash(pc, command).behavior == "allow", command


def test_core_hooks_path_is_followed(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(git:*)",), mode="default")
    project = Path(pc.project_dir)
    _git_repo(project)
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=project, check=True)
    _hook(project / ".husky" / "_", "pre-commit", tmp_path / "log")
    assert bash(pc, "git log --oneline").behavior == "allow"  # husky repos stay usable
    assert bash(pc, "git status").behavior == "allow"
    assert bash(pc, "git commit -m x").behavior == "ask"


# --- class 5: a denied file under another name in a searched folder --------------------------


def _linked_secrets(project: Path) -> None:
    (project / "secrets").mkdir()
    (project / "secrets" / "k.txt").write_text("keyleak_QQ\n")
    (project / "deep" / "a").mkdir(parents=True)
    (project / "deep" / "a" / "x.pem").write_text("pemleak_QQ\n")
    (project / "sub").mkdir()
    (project / "sub" / "plain.txt").write_text("nothing\n")
    os.link(project / ".env", project / "sub" / "hl_env")
    os.link(project / "secrets" / "k.txt", project / "sub" / "hl_key")
    os.link(project / "deep" / "a" / "x.pem", project / "sub" / "hl_pem")
    os.symlink(project / ".env", project / "sub" / "sl_env")


def test_link_rows_are_real(tmp_path: Path) -> None:
    pc = context(tmp_path)
    project = Path(pc.project_dir)
    _linked_secrets(project)
    out = subprocess.run(
        ["grep", "-r", "leak_QQ", "sub"], cwd=project, capture_output=True, text=True
    ).stdout
    assert "keyleak_QQ" in out and "pemleak_QQ" in out
    out = subprocess.run(
        ["grep", "-R", "SECRET", "sub"], cwd=project, capture_output=True, text=True
    ).stdout
    assert "sub/sl_env" in out


@pytest.mark.parametrize("mode", MODES)
def test_links_to_denied_files_are_the_denied_files(tmp_path: Path, mode: str) -> None:
    deny = ("Read(./.env)", "Read(./secrets/**)", "Read(*.pem)")
    pc = context(
        tmp_path, allow=("Bash(grep:*)", "Bash(cp:*)", "Bash(tar:*)"), deny=deny, mode=mode
    )
    project = Path(pc.project_dir)
    _linked_secrets(project)
    view = ContextPermissionView(pc)
    for name in ("hl_env", "hl_key", "hl_pem", "sl_env"):  # what Grep and Glob filter with
        assert view.check_path("Grep", str(project / "sub" / name), "read").behavior == "deny", name
    assert view.check_path("Grep", str(project / "sub" / "plain.txt"), "read").behavior != "deny"
    for command in ("grep -r leak sub", "grep -R SECRET sub", "rg leak sub", "cp -r sub out",
                    "tar cf o.tar sub", "grep -rn leak ./sub"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
        if mode == "bypassPermissions":
            assert d.behavior == "deny", command


def test_symlinks_count_only_for_readers_that_follow_them(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Read(./.env)",), mode="default")
    project = Path(pc.project_dir)
    (project / "sub").mkdir()
    (project / "sub" / "a.txt").write_text("x\n")
    os.symlink(project / ".env", project / "sub" / "sl")
    assert bash(pc, "grep -r x sub").behavior == "allow"  # grep -r does not follow links inside
    assert bash(pc, "grep -R x sub").behavior != "allow"
    assert bash(pc, "rg -L x sub").behavior != "allow"


def test_a_listing_past_its_bound_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = context(tmp_path, deny=("Read(.env)",), mode="default")
    project = Path(pc.project_dir)
    for i in range(40):
        (project / "src" / f"f{i}.py").write_text("x\n")
    (project / "a").write_text("x\n")
    os.link(project / "a", project / "b")  # two names, and no rule names either
    view = ContextPermissionView(pc)
    assert view.check_path("Read", str(project / "b"), "read").behavior != "deny"
    monkeypatch.setattr(identity, "WALK_LIMIT", 10)
    identity._cache.clear()
    assert view.check_path("Read", str(project / "b"), "read").behavior == "deny"


def test_end_to_end_grep_tool_and_bash(tmp_path: Path) -> None:
    pc = context(tmp_path)
    project = Path(pc.project_dir)
    _linked_secrets(project)
    calls: list[tuple[str, dict[str, object]]] = [
        ("Grep", {"pattern": "leak_QQ|SECRET", "output_mode": "content"}),
        ("Glob", {"pattern": "sub/*"}),
        ("Bash", {"command": "grep -r leak_QQ sub"}),
    ]
    proc, result = _lathe(tmp_path, project, calls, "--disallowedTools", "Read(./.env)",
                          "--disallowedTools", "Read(./secrets/**)",
                          "--disallowedTools", "Read(*.pem)")  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    for leak in ("keyleak_QQ", "pemleak_QQ", "SECRET=1", "hl_env", "hl_key"):
        assert leak not in proc.stdout, (leak, proc.stdout[-2000:])
    assert _denied_ids(result) == ["t2"], result
