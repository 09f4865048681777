"""A long CLAUDE.md is sent whole, as Claude Code 2.1.332 sends it (ext-r4 F8), with its
"Large ... will impact performance" warning past 40k characters; only a file past a million
characters is cut, and the cut is said, never silent."""

from __future__ import annotations

from pathlib import Path

from app.memory.files import LARGE_MEMORY_CHARS, MAX_MEMORY_CHARS, load_memory


def _load(proj: Path, tmp_path: Path):
    return load_memory(proj, proj, None, {"HOME": str(tmp_path / "home")})


def test_a_file_past_40k_is_sent_whole_with_a_warning(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    body = "rule line\n" * (LARGE_MEMORY_CHARS // 10 + 600) + "LASTLINE: run make check"
    (proj / "CLAUDE.md").write_text(body)
    loaded = _load(proj, tmp_path)
    [memory] = loaded.files
    assert memory.text.endswith("LASTLINE: run make check")
    assert len(memory.text) == len(body)
    assert any("will impact performance" in p and "CLAUDE.md" in p for p in loaded.problems)


def test_an_ordinary_file_has_no_warning(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CLAUDE.md").write_text("x" * (LARGE_MEMORY_CHARS - 10))
    assert _load(proj, tmp_path).problems == []


def test_a_file_past_the_cap_is_cut_and_says_so(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CLAUDE.md").write_text("y" * (MAX_MEMORY_CHARS + 5000) + "TAIL")
    loaded = _load(proj, tmp_path)
    [memory] = loaded.files
    assert "TAIL" not in memory.text
    assert memory.text.startswith("y" * 1000)
    assert "longer than shown" in memory.text
    assert any("cut at 1,000,000 characters" in p for p in loaded.problems)
