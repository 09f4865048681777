"""Differential check against real bash: a command dontAsk mode auto-allows changes nothing.

Read-only commands are crossed with injections that would create the file `P` (substitutions,
subscripts, here-documents, redirects, options that write or run, separators); every combination
the permission layer auto-allows is run by bash in a copy of a booby-trapped project, and no file
may appear or change. A wider run of the same generator (17 388 commands, 4 370 allowed) found
nothing either; the suite runs a fixed sample to stay fast.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

from tests.unit.permissions.helpers import bash, context
from tests.unit.permissions.test_attack_classes import furnish

HEADS = ["echo", "test -n", "[ -n", "printf %s", "cat", "ls", "grep x", "sed -n p", "sort",
         "git log --oneline", "awk '{print}'", "wc -l", "printenv", "uniq", "date", "test -v",
         "printf -v", "find . -name"]  # fmt: skip
PAYLOADS = [
    "$(touch P)", "`touch P`", "'a[$(touch P)]'", "${x:-$(touch P)}", "<(touch P)",
    "$((a[$(touch P)]))", ";touch P", "\ntouch P", "|touch P", "&touch P", ">P", "2>P", "&>P",
    ">&P", "{touch,P}", "\\\ntouch P", "#\ntouch P", "$'\\n'touch P", "--output=P", "-o P",
    "-exec touch P \\;", "-fprint P", "'1w P'", "'e touch P'", "<<'X'\nX\ntouch P\n'X'",
    "<<X\n$(touch P)\nX", "${x@P}", "'BEGIN{system(\"touch P\")}'", "'{print > \"P\"}'",
    "README.md P", "-c core.fsmonitor='touch P'", "README.md | tee P",
]  # fmt: skip
PREFIXES = ["", "x='a[$(touch P)]'; ", "cd src && ", "LC_ALL=C ", "{ "]
SAMPLE = 40


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[p] = (st.st_size, st.st_mtime_ns)
    return out


def test_auto_allowed_commands_change_nothing(tmp_path: Path) -> None:
    pc = context(tmp_path / "ctx", mode="dontAsk")
    project = Path(pc.project_dir)
    furnish(project, trapped=True)
    allowed = []
    for pre, head, payload in itertools.product(PREFIXES, HEADS, PAYLOADS):
        command = f"{pre}{head} {payload}" + ("; }" if pre == "{ " else "")
        if bash(pc, command).behavior == "allow":
            allowed.append(command)
    assert len(allowed) > SAMPLE  # the generator does produce allowed commands
    step = len(allowed) / SAMPLE
    changed = []
    for k in range(SAMPLE):
        command = allowed[int(k * step)]
        work = tmp_path / f"run{k}"
        shutil.copytree(project, work, symlinks=True)
        before = _snapshot(work)
        subprocess.run(
            ["bash", "-c", command], cwd=work, capture_output=True, timeout=10,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        after = _snapshot(work)
        diff = [p for p in after if before.get(p) != after[p] and "/.git/" not in p]
        diff += [p for p in after if p.endswith("/P")]
        if diff:
            changed.append((command, diff[:3]))
        shutil.rmtree(work)
    assert not changed, changed


def test_the_check_can_fail(tmp_path: Path) -> None:
    """The same run, on commands that do write, sees the change (the snapshot is not blind)."""
    work = tmp_path / "w"
    work.mkdir()
    (work / "a").write_text("x")
    before = _snapshot(work)
    subprocess.run(["bash", "-c", "cat <<'X'\nX\ntouch P\n'X'"], cwd=work, capture_output=True)
    assert set(_snapshot(work)) - set(before) == {str(work / "P")}
