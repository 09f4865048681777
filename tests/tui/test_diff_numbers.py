"""Diffs (the Edit/Write dialog's preview, the block, the full view) show each line with its line
number, as Claude Code does, and no `@@ -1,3 +1,4 @@` hunk header, which is patch notation."""

from __future__ import annotations

from tools.files.diff import unified_diff
from widgets.diff_view import diff_stat, render_diff

BEFORE = "def f():\n    x = 1\n    return x\n"
AFTER = "def f():\n    x = 2\n    y = 3\n    return x\n"


def test_an_edit_shows_line_numbers_without_the_hunk_header() -> None:
    diff, _, _ = unified_diff(BEFORE, AFTER, "foo.py")
    assert "@@ -1,3 +1,4 @@" in diff  # the data keeps the patch; the screen does not
    lines = render_diff(diff).plain.splitlines()
    assert lines == [
        "1  def f():",
        "2 -    x = 1",
        "2 +    x = 2",
        "3 +    y = 3",
        "4      return x",
    ]
    assert diff_stat(diff) == "+2 -1"


def test_two_hunks_are_apart_by_one_gap_row_and_numbers_align() -> None:
    before = "".join(f"line {i}\n" for i in range(1, 41))
    after = before.replace("line 3\n", "line three\n").replace("line 30\n", "line thirty\n")
    diff, _, _ = unified_diff(before, after, "a.txt")
    lines = render_diff(diff).plain.splitlines()
    assert not any("@@" in line for line in lines)
    assert " 3 -line 3" in lines and " 3 +line three" in lines
    assert "30 -line 30" in lines and "30 +line thirty" in lines
    assert "   …" in lines  # the gap between the hunks
    assert lines.index("   …") < lines.index("30 -line 30")


def test_a_created_file_counts_from_one() -> None:
    diff, _, _ = unified_diff("", "a\nb\n", "new.txt")
    assert render_diff(diff).plain.splitlines() == ["1 +a", "2 +b"]


def test_a_cut_diff_counts_what_is_left_out() -> None:
    diff, _, _ = unified_diff("", "".join(f"{i}\n" for i in range(30)), "n.txt")
    text = render_diff(diff, max_lines=5).plain
    assert text.splitlines()[-1] == "… 25 more lines"


def test_a_change_of_unknown_place_keeps_its_signs_without_numbers() -> None:
    # A resumed denied edit whose strings are not in the file any more (tools/files/recorded_input.py).
    diff = "--- a/x.py\n+++ b/x.py\n@@ … @@\n-old line\n+new line\n"
    assert render_diff(diff).plain.splitlines() == ["-old line", "+new line"]
