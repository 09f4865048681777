"""The sixth black-box attack's classes (round 5, second half): abbreviated long options, variables
that carry a program's options, git's pager and external programs, folder and glob pathspecs,
repositories whose git dir is elsewhere, git writing lathe's settings, npm's folder options.

Each class is judged through the decider every mode uses; the first test of a class shows that
the program really reads what the attack relies on.
"""

from __future__ import annotations

import os
import shutil
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
                    "diff --new-f --recur -x .git src .", "/usr/bin/grep -r SECRET .",
                    "/usr/bin/grep --recur SECRET .", "/bin/grep -R SECRET ."):  # fmt: skip
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


# --- F1/F3: variables that carry a program's options ---------------------------------------------


def test_tar_runs_what_tar_options_names(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x\n")
    env = {**os.environ, "TAR_OPTIONS": "--checkpoint=1 --checkpoint-action=exec=touch\\ P"}
    subprocess.run(["tar", "cf", "/dev/null", "f"], cwd=tmp_path, env=env, capture_output=True)
    assert (tmp_path / "P").exists()


_OPTION_VARS = (
    "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm\\ -v\\ v' tar cf /dev/null README.md",
    "TAR_OPTIONS='-I rm' tar cf x.tgz README.md",
    "export TAR_OPTIONS=-Irm; tar cf x2.tgz README.md",
    "env TAR_OPTIONS=-Irm tar cf x.tgz README.md",
    "timeout 9 env TAR_OPTIONS=-Irm tar cf x.tgz README.md",
    "TAR_OPTIONS=-Irm timeout 9 tar cf x.tgz README.md",
    "declare -x TAR_OPTIONS=-Irm; tar cf x.tgz README.md",
    "typeset -x TAR_OPTIONS=-Irm; tar cf x.tgz README.md",
    "TAR_OPTIONS=-Irm; export TAR_OPTIONS; tar cf x.tgz README.md",
    "set -a; TAR_OPTIONS=-Irm; tar cf x.tgz README.md",
    "ZIPOPT='-T -TT \"rm -v v\"' zip -q z.zip README.md",
    "ZIP='-T -TT \"rm -v v\"' zip -q z.zip README.md",
    "export ZIPOPT='-TT x'; zip -q z.zip README.md",
    "GZIP=-S.x gzip -k README.md",
    "XZ_OPT=-T1 xz -k README.md",
    "LESS='-o log' less README.md",
    "GREP_OPTIONS=-r grep SECRET .",
    "RSYNC_RSH='rm -v v' rsync -a x: .",
    "GIT_SSH_COMMAND='rm v' git fetch origin",
    "GIT_EXTERNAL_DIFF=rm git diff",
    "set -a; declare -n X=TAR_OPTIONS; X=-Irm; tar cf x.tgz README.md",
)


@pytest.mark.parametrize("mode", MODES)
def test_option_carrying_variables_are_never_auto_allowed(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(tar:*)", "Bash(zip:*)", "Bash(export:*)", "Bash(git:*)",
                                  "Bash(gzip:*)", "Bash(grep:*)", "Bash(declare:*)"),
                 deny=("Bash(rm:*)", "Bash(curl:*)"), mode=mode)  # fmt: skip
    for command in _OPTION_VARS:
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
    if mode == "bypassPermissions":  # everyday exports and commands still run there
        for command in ("export FOO=1; tar cf x.tar README.md", "LC_ALL=C sort README.md",
                        "zip -q z.zip README.md"):  # fmt: skip
            assert bash(pc, command).behavior == "allow", command


def test_tar_options_cannot_reach_a_read_denied_folder_in_bypass(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Read(./secrets/**)",), mode="bypassPermissions")
    _secrets(pc.project_dir)
    for command in ("TAR_OPTIONS='-C secrets' tar cf - key.txt | strings",
                    "TAR_OPTIONS=-Csecrets tar czf k.tgz key.txt; zcat k.tgz | strings"):  # fmt: skip
        assert bash(pc, command).behavior == "deny", command


# --- F9: git options that start a program no rule sees ---------------------------------------------


def test_git_grep_open_files_in_pager_runs_the_program(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "g").write_text("hello\n")
    subprocess.run(["git", "add", "g"], cwd=tmp_path, check=True)
    subprocess.run(["git", "grep", "-Otouch", "-e", "hello"], cwd=tmp_path, capture_output=True)
    assert (tmp_path / "g").exists()
    subprocess.run(["git", "grep", "--open-f=rm", "-e", "hello"], cwd=tmp_path,
                   capture_output=True)  # fmt: skip
    assert not (tmp_path / "g").exists()


def test_git_program_options_do_not_run_under_bash_deny_rules_in_bypass(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Bash(rm:*)", "Bash(curl:*)"), mode="bypassPermissions")
    for command in ("git grep --open-files-in-pager='rm -v v' -e hello -- g",
                    "git grep --open-files-in-p='rm -v v' -e hello -- g",
                    "git grep --open='rm -v v' -e hello -- g", "git grep -O'rm -v v' -e hello -- g",
                    "git grep -nO'rm -v v' -e hello -- g", "git grep -Orm -e hello -- g",
                    "git grep --open-files-in-pager=rm -e hello -- g", "git grep -O -e hello",
                    "git difftool -y HEAD", "git mergetool", "git diff --ext-diff",
                    "git log --textconv -p"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior == "deny", (command, d.behavior)
    for command in ("git grep -n hello", "git status", "git diff", "git log --oneline"):
        assert bash(pc, command).behavior == "allow", command


# --- F6: npm's folder options under an npm run rule -------------------------------------------------


def test_npm_folder_options_are_not_covered_by_a_run_rule(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(npm run test:*)",), mode="default")
    for command in ("npm run test -C ../other", "npm run test -dC ../other",
                    "npm run test --cache ../npmcache", "npm run test --cache=../npmcache",
                    "npm run test --logs-dir ../npmlogs", "npm run test --logs-dir=../npmlogs",
                    "npm run test --loglevel=silly --logs-dir=pwnlogs", "npm run test --logs=x",
                    "npm run test --prefix=../other"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", command
    assert bash(pc, "npm run test").behavior == "allow"
    assert bash(pc, "npm run test -- --watch").behavior == "allow"


# --- F2/F2b: folder and glob pathspecs of git ------------------------------------------------------


def _tracked_secrets(project: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "secrets").mkdir(exist_ok=True)
    (project / "secrets" / "key.txt").write_text("SECRETKEY=k1\n")
    subprocess.run(["git", "add", "-f", ".env", "secrets/key.txt", "README.md"], cwd=project,
                   check=True)  # fmt: skip
    subprocess.run([*git, "commit", "-qm", "x"], cwd=project, check=True)
    (project / "secrets" / "key.txt").write_text("SECRETKEY=k2\n")


def test_git_globs_match_across_folders(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".env").write_text("S=1\n")
    (project / "README.md").write_text("hi\n")
    _tracked_secrets(project)
    out = subprocess.run(["git", "diff", "--", "*.txt"], cwd=project, capture_output=True,
                         text=True).stdout  # fmt: skip
    assert "SECRETKEY=k2" in out


@pytest.mark.parametrize("mode", MODES)
def test_folder_and_glob_pathspecs_count_as_no_pathspec(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(git diff:*)",), deny=("Read(./.env)", "Read(./secrets/**)"),
                 mode=mode)  # fmt: skip
    project = Path(pc.project_dir)
    shutil.rmtree(project / ".git")  # the helper's stand-in: a real repository instead
    _tracked_secrets(project)
    for command in ("git diff -- .", "git diff -- ./", "git diff -- src/..", "git diff HEAD -- .",
                    f"git diff -- {project}", "git diff HEAD~1 HEAD -- .", "git diff --stat -p -- .",
                    "git diff -U0 -- src README.md .", "git diff HEAD -- '*.txt'",
                    "git diff -- '*key.txt'", "git diff -- '*y.t?t'", "git diff -- '*[.]txt'",
                    "git diff -- \\*.txt", "git diff -- secrets", "git diff -- ''",
                    "git archive HEAD", "git fast-export HEAD"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)
    if mode in ("default", "plan", "dontAsk"):
        for command in ("git diff -- README.md", "git diff -- src", "git diff --stat"):
            d = bash(pc, command)
            assert d.behavior == "allow", (mode, command, d.reason and d.reason.text)


# --- F5: git writing lathe's or Claude Code's settings from a patch or a revision -------------------

_GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
_HOOK_PATCH = "--- /dev/null\n+++ b/.lathe/settings.local.toml\n@@ -0,0 +1,1 @@\n+[permissions]\n"


def _repo(project: Path, track_settings: bool) -> None:
    shutil.rmtree(project / ".git")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "README.md", "src"], cwd=project, check=True)
    if track_settings:
        (project / ".claude").mkdir(exist_ok=True)
        (project / ".claude" / "settings.local.json").write_text("{}\n")
        subprocess.run(["git", "add", "-f", ".claude"], cwd=project, check=True)
    subprocess.run([*_GIT, "commit", "-qm", "x"], cwd=project, check=True)


def test_git_apply_writes_the_settings_a_patch_names(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "h.diff").write_text(_HOOK_PATCH)
    subprocess.run(["git", "apply", "h.diff"], cwd=project, check=True)
    assert (project / ".lathe" / "settings.local.toml").read_text() == "[permissions]\n"


@pytest.mark.parametrize("mode", ("bypassPermissions", "acceptEdits", "default"))
def test_git_writers_of_settings_are_never_auto_allowed(tmp_path: Path, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(git:*)",), deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    _repo(project, track_settings=True)
    (project / "h.diff").write_text(_HOOK_PATCH)
    (project / "m.diff").write_text(_HOOK_PATCH.replace(".lathe/settings.local.toml", ".mcp.json"))
    (project / "ok.diff").write_text(_HOOK_PATCH.replace(".lathe/settings.local.toml", "n.txt"))
    config = os.environ.get("LATHE_CONFIG_DIR", str(tmp_path / "config"))
    for command in ("git apply h.diff", "git apply m.diff", "git am h.diff", "git apply < h.diff",
                    f"git apply --unsafe-paths --directory={config} ok.diff",
                    "printf x >> ok.diff; git apply ok.diff", "git apply missing.diff",
                    f"git checkout-index --prefix={config}/ README.md",
                    "git checkout-index --prefix=.lathe/ README.md", "git checkout -q -- .",
                    "git reset -q --hard", "git restore .", "git checkout -q HEAD -- src/..",
                    "git stash", "git stash pop", "git pull", "git merge FETCH_HEAD",
                    "git -C . checkout -- .", "git --git-dir=.git --work-tree=. reset --hard",
                    "cd src && git checkout -- .."):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, command)


def test_git_writers_without_settings_in_the_repository_are_unchanged(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(git:*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    project = Path(pc.project_dir)
    _repo(project, track_settings=False)
    (project / "ok.diff").write_text(_HOOK_PATCH.replace(".lathe/settings.local.toml", "n.txt"))
    for command in ("git apply ok.diff", "git checkout -q -- .", "git reset -q --hard",
                    "git restore README.md", "git stash", "git checkout -b topic",
                    "git reset HEAD~1", "git stash list"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior == "allow", (command, d.reason and d.reason.text)


# --- F4: nested repositories whose git dir is anywhere ---------------------------------------------


def _commit_all(project: Path) -> None:
    subprocess.run([*_GIT, "commit", "-qm", "x"], cwd=project, check=True, capture_output=True)


def _fsmonitor(config: Path, marker: Path) -> None:
    with config.open("a") as fh:
        fh.write(f"[core]\n\tfsmonitor = touch {marker}\n")


@pytest.mark.parametrize("layout", ("separate", "embedded"))
def test_a_gitlinks_config_runs_under_git_status(tmp_path: Path, layout: str) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "README.md").write_text("hi\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "README.md"], cwd=project, check=True)
    _commit_all(project)
    gitdir = _nested(project, layout)
    _fsmonitor(gitdir / "config", tmp_path / "RAN")
    (project / "lib4" / "dirty").write_text("x\n")
    subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert (tmp_path / "RAN").exists()


def _nested(project: Path, layout: str) -> Path:
    if layout == "separate":
        subprocess.run(["git", "clone", "-q", "--separate-git-dir=.hg2", ".", "lib4"], cwd=project,
                       check=True, capture_output=True)  # fmt: skip
        gitdir = project / ".hg2"
    else:
        subprocess.run(["git", "clone", "-q", ".", "lib4"], cwd=project, check=True,
                       capture_output=True)  # fmt: skip
        gitdir = project / "lib4" / ".git"
    subprocess.run(["git", "add", "lib4"], cwd=project, check=True, capture_output=True)
    return gitdir


@pytest.mark.parametrize("layout", ("separate", "embedded"))
@pytest.mark.parametrize("mode", ("default", "bypassPermissions"))
def test_a_gitlinks_program_keys_make_git_ask(tmp_path: Path, layout: str, mode: str) -> None:
    pc = context(tmp_path, allow=("Bash(git status)", "Bash(git diff:*)", "Bash(printf:*)"),
                 deny=("Bash(rm:*)", "Read(./.env)"), mode=mode)  # fmt: skip
    project = Path(pc.project_dir)
    _repo(project, track_settings=False)
    gitdir = _nested(project, layout)
    assert bash(pc, "git status").behavior == "allow"  # a clean gitlink changes nothing
    rel = os.path.relpath(gitdir / "config", project)
    for command in (f"printf '[core]\\n\\tfsmonitor = rm -v ../v\\n' >> {rel}",
                    f"printf x > {os.path.relpath(gitdir, project)}/hooks/post-checkout"):  # fmt: skip
        assert bash(pc, command).behavior != "allow", (mode, command)
    _fsmonitor(gitdir / "config", tmp_path / "RAN")
    for command in ("git status", "git status --porcelain", "git diff -- lib4",
                    "git diff --stat -- lib4"):  # fmt: skip
        d = bash(pc, command)
        assert d.behavior != "allow", (mode, layout, command)


def test_a_normal_submodule_leaves_auto_allowed_git_alone(tmp_path: Path) -> None:
    pc = context(tmp_path, allow=("Bash(git status)", "Bash(git diff:*)"), mode="default")
    project = Path(pc.project_dir)
    _repo(project, track_settings=False)
    upstream = tmp_path / "up"
    upstream.mkdir()
    (upstream / "f").write_text("f\n")
    subprocess.run(["git", "init", "-q"], cwd=upstream, check=True)
    subprocess.run(["git", "add", "f"], cwd=upstream, check=True)
    _commit_all(upstream)
    subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q",
                    str(upstream), "lib"], cwd=project, check=True, capture_output=True)  # fmt: skip
    assert "worktree" in (project / ".git" / "modules" / "lib" / "config").read_text()
    for command in ("git status", "git diff", "git diff -- lib"):
        d = bash(pc, command)
        assert d.behavior == "allow", (command, d.reason and d.reason.text)


# --- observations: a rule naming a program by its path, a FIFO as settings, a misspelt tool -------


@pytest.mark.parametrize("mode", ("default", "bypassPermissions"))
def test_a_rule_naming_a_programs_path_stops_its_bare_name(tmp_path: Path, mode: str) -> None:
    rm = os.path.realpath(shutil.which("rm") or "/bin/rm")
    for rule_path in {"/bin/rm", "/usr/bin/rm", rm}:
        if not os.path.exists(rule_path):
            continue
        pc = context(tmp_path, deny=(f"Bash({rule_path}:*)",), mode=mode)
        for command in ("rm -v victim.txt", "rm -rf src", "timeout 5 rm x", "/bin/rm x"):
            d = bash(pc, command)
            assert d.behavior == "deny", (rule_path, command, d.behavior)
        assert bash(pc, "ls").behavior == "allow"


def test_a_fifo_as_a_settings_file_cannot_be_read_and_does_not_hang(tmp_path: Path) -> None:
    from app.config.loader import read_settings_file

    fifo = tmp_path / "settings.local.toml"
    os.mkfifo(fifo)
    read = read_settings_file(fifo, "local")  # before the fix this blocked for ever
    assert read.exists and read.settings is None
    assert [p.severity for p in read.problems] == ["error"]
    assert "cannot read" in read.problems[0].message
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    assert "cannot read" in read_settings_file(folder, "local").problems[0].message


def test_a_fifo_settings_file_makes_lathe_p_exit_2(tmp_path: Path) -> None:
    import sys

    from tests.unit.permissions.helpers import make_env

    project = tmp_path / "proj"
    (project / ".lathe").mkdir(parents=True)
    os.mkfifo(project / ".lathe" / "settings.local.toml")
    env = {**os.environ, **make_env(tmp_path), "PYTHONPATH": str(Path(__file__).parents[3])}
    env.pop("ANTHROPIC_API_KEY", None)
    proc = subprocess.run([sys.executable, "-m", "app", "-p", "go"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2
    assert "settings.local.toml" in proc.stderr and "cannot read" in proc.stderr


def test_a_deny_rule_naming_an_unknown_tool_warns(tmp_path: Path) -> None:
    pc = context(tmp_path, deny=("Bsh(rm:*)", "Bash(curl:*)"))
    warnings = [str(p) for p in pc.problems if p.severity == "warning"]
    assert any("Bsh" in w and "did you mean Bash?" in w for w in warnings), pc.problems
    assert not [p for p in pc.problems if p.severity == "error"]
    assert bash(pc, "curl x").behavior == "deny"  # the valid rule beside it holds
