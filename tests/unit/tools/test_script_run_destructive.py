"""Running a script is judged by what the script holds (tui-r5 F11): `bash gen.sh` with no gen.sh
runs nothing and `sh x.sh` whose file only reads destroys nothing, so neither carries the
destructive warning; a script that deletes, or one that cannot be judged, still does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.bash import BashInput, BashTool


def destructive(command: str, cwd: Path) -> bool:
    return BashTool().is_destructive_at(BashInput(command=command), str(cwd))


@pytest.mark.parametrize("command", ["bash gen.sh", "sh x.sh", "bash -e gen.sh", ". env.sh"])
def test_a_missing_script_runs_nothing(tmp_path: Path, command: str) -> None:
    assert not destructive(command, tmp_path)


def test_python_running_a_file_is_not_destructive(tmp_path: Path) -> None:
    assert not destructive("python3 x.py", tmp_path)


def test_a_script_that_only_reads_is_not_destructive(tmp_path: Path) -> None:
    (tmp_path / "x.sh").write_text("#!/bin/sh\nls -la\ncat README.md | grep -c x\necho done\n")
    assert not destructive("sh x.sh", tmp_path)
    assert not destructive("bash x.sh > out.log", tmp_path)  # out.log is new


@pytest.mark.parametrize(
    "body",
    ["rm -rf build\n", "echo x > kept.txt\n", "git reset --hard\n", "bash inner.sh\n", "eval $X\n"],
)
def test_a_script_that_destroys_is_destructive(tmp_path: Path, body: str) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "kept.txt").write_text("data")
    (tmp_path / "inner.sh").write_text("rm -rf build\n")
    (tmp_path / "gen.sh").write_text(body)
    assert destructive("bash gen.sh", tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'rm -rf x'",  # code given as words
        "bash",  # stdin
        "bash -s < gen.sh",
        "bash $SCRIPT",  # only known at run time
        "bash --rcfile r gen.sh",  # an option not judged here
        "cp other.sh gen.sh; bash gen.sh",  # another part may write the script first
        "cat > gen.sh <<'EOF'\nrm -rf build\nEOF\nbash gen.sh",
        "cd sub && bash gen.sh",
    ],
)
def test_scripts_that_cannot_be_judged_stay_destructive(tmp_path: Path, command: str) -> None:
    assert destructive(command, tmp_path)


def test_nested_scripts_deeper_than_the_limit_count_as_destructive(tmp_path: Path) -> None:
    for name, body in (("a.sh", "bash b.sh\n"), ("b.sh", "bash c.sh\n"), ("c.sh", "ls\n")):
        (tmp_path / name).write_text(body)
    assert not destructive("bash b.sh", tmp_path)  # two levels: judged
    assert destructive("bash a.sh", tmp_path)  # three: not judged


def test_without_a_folder_a_script_counts_as_destructive() -> None:
    assert BashTool().is_destructive(BashInput(command="bash gen.sh"))
