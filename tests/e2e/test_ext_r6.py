"""Issue 15, ext-fix7: the ext-r5 black-box findings, through the real `lathe -p`, the HTTP fake
and real files. Claude Code 2.1.332's behaviour for each was measured against the same fake
(CHANGELOG, Round 7).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_ext_r1_permissions import _tool_result
from tests.e2e.test_ext_r4 import _ok, _run, _write
from tests.e2e.test_headless_cli import env_for, lathe


def _home() -> Path:
    return Path(os.environ["HOME"])


def _user_hooks(event: str, matcher: str, hook: dict, **settings: object) -> None:
    body = {**settings, "hooks": {event: [{"matcher": matcher, "hooks": [hook]}]}}
    _write(_home() / ".claude" / "settings.json", json.dumps(body))


def _content(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [])


# -- F12: a hook's exec form (`command` + `args`) ------------------------------------------------


def test_an_exec_form_hook_runs_the_program_with_its_args_and_the_json_on_stdin(
    fake_api, project, tmp_path
):
    stdin_copy = tmp_path / "stdin.json"
    script = f'cat > {stdin_copy}; echo "ARGV0=$0 ARGV1=$1" >&2; exit 2'
    _user_hooks(
        "PreToolUse",
        "*",
        {"type": "command", "command": "sh", "args": ["-c", script, "A1", "$HOME ~"]},
    )
    target = project / "n.txt"
    fake_api.load(
        [turn_of([tool_use_block("Read", {"file_path": str(target)}, "r1")]), text_turn("done")]
    )
    _ok(_run(fake_api, project, "hi"))
    result = _tool_result(fake_api, "r1")
    assert result.get("is_error") is True
    # As Claude Code 2.1.332 words it: the argv joined, then stderr; `$HOME` and `~` stay literal.
    assert f"[sh -c {script} A1 $HOME ~]: ARGV0=A1 ARGV1=$HOME ~" in _content(result)
    sent = json.loads(stdin_copy.read_text())
    assert sent["hook_event_name"] == "PreToolUse" and sent["tool_input"]["file_path"] == str(
        target
    )


def test_a_model_written_substitution_never_runs_through_an_exec_form_hook(
    fake_api, project, tmp_path
):
    pwned = tmp_path / "PWNED"
    hook = _write(tmp_path / "hook.sh", "echo HOOKSCRIPT >&2; exit 0\n")
    _user_hooks("PreToolUse", "*", {"type": "command", "command": "bash", "args": [str(hook)]})
    path = f"/nonexistent/$(touch {pwned})"
    fake_api.load([turn_of([tool_use_block("Read", {"file_path": path}, "r1")]), text_turn("done")])
    _ok(_run(fake_api, project, "hi"))
    assert not pwned.exists()
    assert _tool_result(fake_api, "r1").get("is_error") is True  # denied outside the project


def test_exec_form_args_that_are_not_a_list_of_strings_are_a_clear_error(fake_api, project):
    _user_hooks("PreToolUse", "*", {"type": "command", "command": "bash", "args": "x.sh"})
    fake_api.load([text_turn("ok")])
    proc = _run(fake_api, project, "hi")
    assert "args must be a list of strings" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- F15: comma lists and regexes as Claude Code matches them ------------------------------------


def test_a_comma_list_matcher_guards_a_write_as_in_claude_code(fake_api, project):
    block = {"type": "command", "command": "echo PROTECTED >&2; exit 2"}
    _user_hooks("PreToolUse", "Write,Edit,MultiEdit", block, permissions={"allow": ["Write"]})
    target = project / "SENT_written.txt"
    write = tool_use_block("Write", {"file_path": str(target), "content": "x\n"}, "w1")
    fake_api.load([turn_of([write]), text_turn("done")])
    _ok(_run(fake_api, project, "hi"))
    assert not target.exists()
    result = _tool_result(fake_api, "w1")
    assert result.get("is_error") is True and "PROTECTED" in _content(result)


def test_a_regex_matcher_is_searched_for_in_the_tool_name_as_in_claude_code(
    fake_api, project, tmp_path
):
    fired = tmp_path / "fired"
    # `B*` matches the empty string, so Claude Code 2.1.332 fires it for every tool (a Read too).
    hook = {"type": "command", "command": f"echo x >> {fired}"}
    _user_hooks("PreToolUse", "B*", hook)
    _write(project / "n.txt", "hello\n")
    read = tool_use_block("Read", {"file_path": str(project / "n.txt")}, "r1")
    fake_api.load([turn_of([read]), text_turn("done")])
    _ok(_run(fake_api, project, "hi"))
    assert fired.exists()
    assert _tool_result(fake_api, "r1").get("is_error") is not True


# -- F9: ANTHROPIC_AUTH_TOKEN beside ANTHROPIC_API_KEY ---------------------------------------------


def test_an_auth_token_beside_the_api_key_runs_with_the_key_as_claude_code_does(fake_api, project):
    # Claude Code 2.1.332 with both: a fake requiring the key's value answers, one requiring the
    # token's refuses (401) -- it authenticates with the key.
    fake_api.api_key = "k"  # env_for's ANTHROPIC_API_KEY
    (project / ".git").mkdir(exist_ok=True)
    cmd = ["-p", "hi", "--output-format", "json"]
    fake_api.load([text_turn("ok")])
    both = lathe(cmd, project, env_for(fake_api, ANTHROPIC_AUTH_TOKEN="dummy"))
    assert "Traceback" not in both.stderr
    assert _ok(both)["result"] == "ok"
    # The same from a settings `env` (feiskyer/claude-code-settings' proxy setup).
    _write(
        _home() / ".claude" / "settings.json",
        json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": "dummy"}}),
    )
    fake_api.load([text_turn("ok")])
    assert _ok(lathe(cmd, project, env_for(fake_api)))["result"] == "ok"
    # The token alone still authenticates.
    fake_api.api_key = "dummy"
    fake_api.load([text_turn("ok")])
    alone = env_for(fake_api)
    del alone["ANTHROPIC_API_KEY"]
    assert _ok(lathe(cmd, project, alone))["result"] == "ok"


# -- F8: --setting-sources selects memory, commands and skills --------------------------------------


def _sources_setup(project: Path) -> None:
    claude = _home() / ".claude"
    _write(claude / "CLAUDE.md", "USERMEM\n")
    _write(project / "CLAUDE.md", "PROJMEM\n")
    _write(project / "CLAUDE.local.md", "LOCALMEM\n")
    _write(claude / "commands" / "uc.md", "---\ndescription: USERCMD\n---\nuser command\n")
    _write(project / ".claude" / "commands" / "pc.md", "---\ndescription: PROJCMD\n---\npc\n")
    skill = "---\nname: psk\ndescription: PROJSKILL\n---\nproject skill\n"
    _write(project / ".claude" / "skills" / "psk" / "SKILL.md", skill)


_MARKERS = ("USERMEM", "PROJMEM", "LOCALMEM", "USERCMD", "PROJCMD", "PROJSKILL")


def test_setting_sources_choose_which_memory_commands_and_skills_load(fake_api, project):
    _sources_setup(project)
    # What reaches the first request, as Claude Code 2.1.332 sends it (ext-r5's table).
    expected = {
        None: set(_MARKERS),
        "user": {"USERMEM", "USERCMD"},
        "project": {"PROJMEM", "PROJCMD", "PROJSKILL"},
        "local": {"LOCALMEM"},
        "user,local": {"USERMEM", "LOCALMEM", "USERCMD"},
        "": set(),
    }
    for flag, markers in expected.items():
        fake_api.load([text_turn("ok")])
        args = () if flag is None else ("--setting-sources", flag)
        _ok(_run(fake_api, project, "hi", *args))
        sent = json.dumps(fake_api.bodies()[-1])
        assert {m for m in _MARKERS if m in sent} == markers, flag


# -- F5: `opusplan` and `--model default` ---------------------------------------------------------


def test_opusplan_and_model_default_reach_the_api_as_model_ids(fake_api, project):
    from app.model.client import DEFAULT_MODEL

    for flag, sent in (("opusplan", "claude-sonnet-5-5"), ("default", DEFAULT_MODEL)):
        fake_api.load([text_turn("ok")])
        _ok(_run(fake_api, project, "hi", "--model", flag))
        assert fake_api.bodies()[-1]["model"] == sent, flag
    _write(_home() / ".claude" / "settings.json", json.dumps({"model": "opusplan"}))
    fake_api.load([text_turn("ok")])
    _ok(_run(fake_api, project, "hi"))
    assert fake_api.bodies()[-1]["model"] == "claude-sonnet-5-5"


# -- F2: a `!` line's exit 1 from grep, diff, test ----------------------------------------------


def _bang_command(name: str, tool: str, line: str) -> None:
    text = f"---\nallowed-tools: Bash({tool}:*)\n---\nG: !`{line}` end\n"
    _write(_home() / ".claude" / "commands" / f"{name}.md", text)


def test_a_bang_line_whose_exit_1_is_an_answer_is_sent_as_claude_code_sends_it(fake_api, project):
    _write(project / "a.txt", "hello\n")
    _write(project / "b.txt", "bye\n")
    _bang_command("g1", "grep", "grep zzz a.txt")
    _bang_command("g3", "diff", "diff a.txt b.txt")
    _bang_command("g4", "test", "test -f nofile.txt")
    _bang_command("g5", "false", "false")
    for name, sent in (
        ("g1", "G: (Bash completed with no output) end"),
        ("g3", "< hello"),
        ("g4", "G: (Bash completed with no output) end"),
    ):
        fake_api.load([text_turn("ok")])
        _ok(_run(fake_api, project, f"/{name}"))
        assert sent in json.dumps(fake_api.bodies()[-1]), name
    # Any other command's exit 1 still stops the command before the model (the same in both).
    fake_api.load([text_turn("ok")])
    before = len(fake_api.bodies())
    out = _ok(_run(fake_api, project, "/g5"))
    assert len(fake_api.bodies()) == before
    assert out["result"].startswith('Shell command failed for pattern "!`false`"')
