"""The helpers under the file tools: line windows, encodings, replacement, globs, atomic writes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.files import lines as lines_mod
from tools.files.lines import read_window
from tools.files.replace import ReplaceError, replace
from tools.files.textfile import atomic_write, decode, detect_line_ending, load, parse, render
from tools.search.globs import Overrides, compile_override, split_glob_param, type_matcher

LINE = st.text(alphabet=st.sampled_from("ab é\r\t"), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    body=st.lists(LINE, max_size=30),
    final_newline=st.booleans(),
    offset=st.integers(min_value=1, max_value=35),
    limit=st.integers(min_value=1, max_value=40),
    encoding=st.sampled_from(["utf-8", "utf-16", "utf-8-sig"]),
)
def test_window_equals_naive_split(
    body: list[str], final_newline: bool, offset: int, limit: int, encoding: str
) -> None:
    text = "\n".join(body) + ("\n" if final_newline and body else "")
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(text.encode(encoding))
    try:
        window = read_window(f.name, offset, limit)
    finally:
        os.unlink(f.name)
    expected = text.split("\n")
    if expected and expected[-1] == "":
        expected.pop()
    expected = [x[:-1] if x.endswith("\r") else x for x in expected]
    assert window.lines == expected[offset - 1 : offset - 1 + limit]
    if offset + limit - 1 >= len(expected):
        assert window.total_lines == len(expected)


def test_skip_crosses_chunk_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines_mod, "_CHUNK", 7)
    path = tmp_path / "f.txt"
    path.write_text("".join(f"{i}\n" for i in range(1, 200)))
    window = read_window(str(path), 150, 3)
    assert window.lines == ["150", "151", "152"]


def test_very_long_line_is_bounded_and_marked(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"z" * 3_000_000 + b"\nnext\n")
    window = read_window(str(path), 1, 5)
    assert window.lines[0] == "z" * 2000 + lines_mod.TRUNCATION_MARK
    assert window.lines[1] == "next" and window.cut_lines == 1


def test_decode_and_line_endings() -> None:
    assert decode(b"caf\xc3\xa9") == ("café", "utf-8")
    assert decode(b"caf\xe9") == ("café", "cp1252")
    assert decode(b"\x81caf\xe9") == ("\x81café", "latin-1")  # 0x81 is not cp1252
    assert decode(b"caf\xe9\ncaf\xc3\xa9\n") == ("café\ncafé\n", "mixed")
    assert decode("x".encode("utf-16")) == ("x", "utf-16-le")
    assert detect_line_ending("a\r\nb\r\n") == "\r\n"
    assert detect_line_ending("a\r\nb\n") == "\n"  # mixed: left byte for byte
    crlf = parse(b"a\r\nb\r\n")
    assert crlf.text == "a\nb\n" and render(crlf, "a\nB\nc") == b"a\r\nB\r\nc"


def test_mixed_endings_edit_keeps_other_lines(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(b"a\r\nb\nc\r\n")
    current = load(str(path))
    assert current.line_ending == "\n" and current.text == "a\r\nb\nc\r\n"


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("old")
    path.chmod(0o640)
    atomic_write(str(path), b"new")
    assert path.read_bytes() == b"new" and (path.stat().st_mode & 0o777) == 0o640
    assert os.listdir(tmp_path) == ["f"]


def test_replace_rules() -> None:
    assert replace("a b a", "b", "c", False).text == "a c a"
    assert replace("a b a", "a", "x", True).text == "x b x"
    with pytest.raises(ReplaceError, match="Found 2 matches"):
        replace("a b a", "a", "x", False)
    with pytest.raises(ReplaceError, match="not found"):
        replace("abc", "zzz", "x", False)
    with pytest.raises(ReplaceError, match="already exists"):
        replace("content", "", "x", False)
    assert replace("", "", "new", False).text == "new"
    assert replace("x\ny\nz\n", "y", "", False).text == "x\nz\n"
    # Replacement text with regex or format metacharacters is inserted literally.
    assert replace("v = 1", "1", r"\1 {0} $&", False).text == r"v = \1 {0} $&"


@pytest.mark.parametrize(
    ("glob", "path", "is_dir", "expected"),
    [
        ("*.py", "a.py", False, True),
        ("*.py", "x/y/a.py", False, True),
        ("src/*.py", "src/a.py", False, True),
        ("src/*.py", "src/x/a.py", False, False),
        ("src/**/*.py", "src/x/y/a.py", False, True),
        ("src/**/*.py", "src/a.py", False, True),
        ("*.{ts,tsx}", "w/c.tsx", False, True),
        ("[ab].txt", "b.txt", False, True),
        ("[!ab].txt", "b.txt", False, False),
        ("?.md", "ab.md", False, False),
        ("build/", "build", False, False),
        ("build/", "build", True, True),
        ("/top.txt", "sub/top.txt", False, False),
        ("**", "any/thing", False, True),
    ],
)
def test_override_glob_semantics(glob: str, path: str, is_dir: bool, expected: bool) -> None:
    item = compile_override(glob)
    matched = bool(item.regex.match(path)) and (is_dir or not item.dir_only)
    assert matched is expected


def test_overrides_last_match_wins_and_whitelist_excludes_others() -> None:
    overrides = Overrides(["*.js", "!*.min.js"])
    assert overrides.matched("a.js", False) is True
    assert overrides.matched("a.min.js", False) is False
    assert overrides.matched("a.py", False) is False
    assert overrides.matched("folder", True) is None


def test_split_glob_param_and_types() -> None:
    assert split_glob_param("*.{ts,tsx}, *.js  !*.min.js") == ["*.{ts,tsx}", "*.js", "!*.min.js"]
    assert split_glob_param("") == []
    assert type_matcher("py").match("x.pyi")
    assert type_matcher("make").match("Makefile")
    assert not type_matcher("py").match("x.pyc")
