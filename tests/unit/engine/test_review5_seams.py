"""Review round 5's leftovers (issue 13): an answer's lifetime, its end of turn and its
permission updates are typed fields of PermissionDecision (no string keys); search tools name
the folder they search; an Edit preview that is not of the whole file carries no whole-text
change (a front end would show the strings as the file)."""

from __future__ import annotations

from pathlib import Path

from app.engine import answers
from app.engine.permission_updates import PermissionUpdate
from app.execution.outcome import ends_turn
from tools.base import CallLocation, ToolContext
from tools.edit import EditInput, EditTool
from tools.glob import GlobInput, GlobTool
from tools.grep import GrepInput, GrepTool


def test_answers_carry_their_lifetime_end_of_turn_and_updates_as_fields() -> None:
    assert answers.allow_always(("Bash(ls:*)",)).remember == "always"
    assert answers.allow_for_session(("Bash(ls:*)",)).remember == "session"
    assert answers.allow_once().remember == ""
    assert ends_turn(answers.deny(end_turn=True))
    assert not ends_turn(answers.deny("try another way", end_turn=True))
    assert not ends_turn(answers.deny())
    (update,) = answers.deny_always(("Bash(rm:*)",)).updates
    assert isinstance(update, PermissionUpdate) and update.behavior == "deny"


def test_search_tools_name_the_folder_they_search() -> None:
    assert GrepTool().locations(GrepInput(pattern="x", path="src")) == (CallLocation("src"),)
    assert GlobTool().locations(GlobInput(pattern="*.py", path="lib")) == (CallLocation("lib"),)
    assert GrepTool().locations(GrepInput(pattern="x")) == ()
    assert GrepTool().call_kind() == GlobTool().call_kind() == "search"


def _ctx(tmp: Path) -> ToolContext:
    return ToolContext(cwd=str(tmp), project_dir=str(tmp), working_dirs=(str(tmp),))


def test_an_edit_creating_a_file_previews_no_old_text(tmp_path: Path) -> None:
    preview = EditTool().preview(
        EditInput(file_path=str(tmp_path / "new.txt"), old_string="", new_string="hello\n"),
        _ctx(tmp_path),
    )
    assert preview is not None and preview.change is not None
    assert preview.change.old_text is None and preview.change.new_text == "hello\n"


def test_an_edit_whose_string_is_not_on_disk_proposes_its_strings(tmp_path: Path) -> None:
    # An editor's unsaved buffer may hold it (ACP): the strings, as Claude Code's adapter sends.
    target = tmp_path / "a.txt"
    target.write_text("one\ntwo\n")
    preview = EditTool().preview(
        EditInput(file_path=str(target), old_string="absent", new_string="x"), _ctx(tmp_path)
    )
    assert preview is not None and preview.change is not None
    assert (preview.change.old_text, preview.change.new_text) == ("absent", "x")


def test_an_edit_of_a_file_previews_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("one\ntwo\n")
    preview = EditTool().preview(
        EditInput(file_path=str(target), old_string="two", new_string="2"), _ctx(tmp_path)
    )
    assert preview is not None and preview.change is not None
    assert (preview.change.old_text, preview.change.new_text) == ("one\ntwo\n", "one\n2\n")
