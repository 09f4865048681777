"""Which repository git would use, and whether its config makes a read-only git command run code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.permissions.bash_git import git_place_risk, git_reveal_risk


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "init", "-q")
    return project


def test_a_plain_repository_is_fine(repo: Path) -> None:
    assert git_place_risk(str(repo), str(repo), moved=False) == ""
    (repo / "src").mkdir()
    assert git_place_risk(str(repo / "src"), str(repo), moved=False) == ""


@pytest.mark.parametrize(
    "key",
    [
        "core.fsmonitor",
        "core.pager",
        "diff.external",
        "diff.x.textconv",
        "filter.x.clean",
        "pager.status",
        "include.path",
        "gpg.program",
        "core.sshCommand",
        "alias.st",
    ],
)
def test_config_keys_that_run_programs(repo: Path, key: str) -> None:
    _git(repo, "config", key, "touch P")
    if key == "alias.st":
        assert git_place_risk(str(repo), str(repo), moved=False) == ""  # aliases: by subcommand
    else:
        assert "config" in git_place_risk(str(repo), str(repo), moved=False)


def test_fsmonitor_false_is_fine(repo: Path) -> None:
    _git(repo, "config", "core.fsmonitor", "false")
    assert git_place_risk(str(repo), str(repo), moved=False) == ""


def test_a_repository_inside_the_project(repo: Path) -> None:
    sub = repo / "sub"
    sub.mkdir()
    _git(sub, "init", "-q", "--bare", "b")
    assert "bare" in git_place_risk(str(sub / "b"), str(repo), moved=False)
    _git(sub, "init", "-q", "inner")
    assert "inside the project" in git_place_risk(str(sub / "inner"), str(repo), moved=False)
    assert git_place_risk(str(repo), str(repo), moved=True)


def test_a_worktree_reads_the_common_config(repo: Path, tmp_path: Path) -> None:
    (repo / "f").write_text("x")
    _git(repo, "add", "f")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    _git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    wt = tmp_path / "wt"
    assert git_place_risk(str(wt), str(wt), moved=False) == ""
    _git(repo, "config", "core.fsmonitor", "touch P")
    assert git_place_risk(str(wt), str(wt), moved=False)


def test_reveals() -> None:
    assert git_reveal_risk(("git", "show", "HEAD:secrets/x"))
    assert git_reveal_risk(("git", "log", "-p"))
    assert git_reveal_risk(("git", "diff", "--no-index", "a", "b"))
    assert git_reveal_risk(("git", "cat-file", "-p", "HEAD"))
    assert git_reveal_risk(("git", "log", "--oneline")) == ""
    assert git_reveal_risk(("git", "diff", "--stat")) == ""
    assert git_reveal_risk(("git", "show", "--stat", "HEAD")) == ""
