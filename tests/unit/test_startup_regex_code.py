"""app/regex_code.py: patterns built from stored code match as `re` builds them; the store is
written, read back by a new process, and a damaged one is ignored."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import regex_code

ROOT = Path(__file__).resolve().parents[2]

PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<key>[A-Za-z_]+)\s*=\s*(?P<value>.*?)\s*$", re.MULTILINE),
    (r"(?i)bash\((?:[^)\\]|\\.)*\)", 0),
    (r"^\s*(```|~~~)", 0),
    (r"(`+)(?:(?!\1).)+?\1", re.DOTALL),
    (rb"[\x00-\x08\x0b\x0c\x0e-\x1f]", 0),
    (r"\bw\d{1,4}\b", re.ASCII),
    (r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE | re.VERBOSE),
]
SAMPLES = [
    "Key = some value  \nother=x",
    "BASH(ls -la \\) x)",
    "  ```py",
    "a ``b`` c",
    "w12 w99999",
]


def _describe(compiled: re.Pattern[str] | re.Pattern[bytes]) -> list[object]:
    out: list[object] = [compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex]
    for text in SAMPLES:
        subject: str | bytes = text.encode() if isinstance(compiled.pattern, bytes) else text
        out.append([m.span() for m in compiled.finditer(subject)])  # type: ignore[arg-type]
        out.append([m.groups() for m in compiled.finditer(subject)])  # type: ignore[arg-type]
    return out


def _compile_all() -> list[list[object]]:
    re.purge()  # re's own per-process cache would hand back the earlier objects
    return [_describe(re.compile(p, f)) for p, f in PATTERNS]


@pytest.fixture
def clean() -> Iterator[None]:
    regex_code.uninstall()
    yield
    regex_code.uninstall()
    re.purge()


def test_the_stored_code_builds_patterns_that_match_the_same(tmp_path: Path, clean: None) -> None:
    plain = _compile_all()
    store = tmp_path / "regex.bin"
    regex_code.install(str(store))
    compiled = _compile_all()
    regex_code.save()
    regex_code.uninstall()
    regex_code.install(str(store))
    assert len(regex_code._parts) >= len(PATTERNS)  # read back
    stored = _compile_all()
    assert plain == compiled == stored


def test_a_bad_pattern_still_raises_and_is_not_stored(tmp_path: Path, clean: None) -> None:
    regex_code.install(str(tmp_path / "regex.bin"))
    re.purge()
    with pytest.raises(re.error):
        re.compile(r"(unclosed")
    assert ("(unclosed", 0) not in regex_code._parts


_COUNT_PARSES = r"""
import sys
from app import regex_code
regex_code.install(sys.argv[1])
from re import _parser
calls = []
real = _parser.parse
def counting(*a, **k):
    calls.append(1)
    return real(*a, **k)
_parser.parse = counting
import re
re.purge()
assert re.compile(r"(?P<a>x+)y").match("xxy").group("a") == "xx"
print(len(calls))
"""


def _run(store: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(
        [sys.executable, "-c", _COUNT_PARSES, str(store)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout)


def test_a_second_process_parses_nothing_and_a_damaged_store_is_rebuilt(tmp_path: Path) -> None:
    store = tmp_path / "regex.bin"
    assert _run(store) > 0
    assert store.is_file()
    assert _run(store) == 0
    store.write_bytes(store.read_bytes()[:50])
    assert _run(store) > 0
    assert _run(store) == 0
