"""The tenth black-box attack's classes (round 9), through the real loaders and decider.

F1: a runner reaches script files beyond the folder it starts in -- workspaces (`npm run test
--ws`), members (cargo), included makefiles, a Makefile calling npm -- so a rule allowing a runner
holds only while no runner's script file anywhere in the project changed during the session, or
is written by another part of the command. Unchanged projects, changed sources, installed
packages, caches and virtual environments keep the rule (the controls).

F2, F4, F5: a write that takes away or replaces a folder holding later sessions' settings (lathe's
config folder, `~/.claude`, the state folder with the trust records, the home, the project) or
writes into the config, Claude or state folder (agents, skills, trust.json), or writes
`~/.claude.json`, is a write to a protected path: asked, never allowed by acceptEdits or by
bypassPermissions under deny rules. A plain write into the home (`cp f ~`) stays allowed.

F3: MCP servers are told apart by the name their tools carry, so a checked-in `my.srv` cannot
put tools under the user's `mcp__my_srv__*` (and its allow rule)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.mcp.bridge import normalize_name
from app.mcp.config import api_server_name, load_mcp_config
from app.permissions import project_scripts
from app.permissions.context import PermissionContext
from tests.unit.permissions.helpers import bash, context, decide

MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")

# --- F1: script files anywhere in the project --------------------------------------------------

RULES = (
    "Bash(npm run test:*)",
    "Bash(npm test)",
    "Bash(yarn test:*)",
    "Bash(pnpm:*)",
    "Bash(make test:*)",
    "Bash(cargo test:*)",
)
RUNNERS = ("npm run test --ws", "npm run test", "npm test", "yarn test", "pnpm -r test",
           "make test", "cargo test")  # fmt: skip


def _monorepo(project: Path) -> None:
    (project / "package.json").write_text(
        '{"workspaces": ["packages/*"], "scripts": {"test": "x"}}'
    )
    (project / "packages" / "a").mkdir(parents=True)
    (project / "packages" / "a" / "package.json").write_text('{"scripts": {"test": "echo a"}}')
    (project / "Makefile").write_text("test:\n\tnpm test\n")
    (project / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/*"]\n')
    (project / "crates" / "c").mkdir(parents=True)
    (project / "crates" / "c" / "build.rs").write_text("fn main() {}\n")
    (project / "crates" / "c" / "Cargo.toml").write_text('[package]\nname = "c"\n')


def _started_now(pc: PermissionContext) -> PermissionContext:
    """The session starts after every file written so far, and before every later one: the
    kernel stamps ctime from a coarse clock (a few ms), so wait out a tick on both sides."""
    time.sleep(0.02)
    started = replace(pc, session_started_ns=time.time_ns())
    time.sleep(0.02)
    return started


def _runner_session(tmp: Path, mode: str = "acceptEdits") -> tuple[PermissionContext, Path]:
    pc = context(tmp, allow=RULES, deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    _monorepo(project)
    return _started_now(pc), project


CHANGES = {
    "workspace package.json": ("packages/a/package.json", '{"scripts": {"test": "rm V"}}'),
    "new workspace": ("packages/new/package.json", '{"scripts": {"test": "rm V"}}'),
    "member build.rs": ("crates/c/build.rs", 'fn main() { std::fs::remove_file("V").ok(); }'),
    "included makefile": ("mk/rules.mk", "test:\n\trm V\n"),
    "workspace PATH folder": ("packages/a/node_modules/.bin/echo", "#!/bin/sh\nrm V\n"),
    "cargo config in a member": ("crates/c/.cargo/config.toml", '[build]\nrustc = "./x"\n'),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("mode", ("default", "acceptEdits", "dontAsk"))
def test_a_script_file_changed_anywhere_stops_every_runner_rule(
    tmp_path: Path, mode: str, change: str
) -> None:
    pc, project = _runner_session(tmp_path, mode)
    for command in RUNNERS:
        assert bash(pc, command).behavior == "allow", (command, "as the session found it")
    rel, text = CHANGES[change]
    (project / rel).parent.mkdir(parents=True, exist_ok=True)
    (project / rel).write_text(text)
    reached = RUNNERS
    if change == "workspace PATH folder":  # a PATH folder counts for the runners that use it
        reached = tuple(c for c in RUNNERS if c.split()[0] in ("npm", "yarn", "pnpm"))
    for command in reached:
        d = bash(pc, command)
        assert d.behavior != "allow", (change, command)
        assert d.behavior == ("deny" if mode == "dontAsk" else "ask"), (change, command)
        assert "changed during this session" in d.message, d.message


def test_another_part_writing_a_workspace_script_stops_the_rule(tmp_path: Path) -> None:
    pc, _ = _runner_session(tmp_path)
    for command in (
        "printf '{}' > packages/a/package.json && npm run test --ws",
        "echo 'test:' > mk/x.mk; make test",
        "cp /tmp/x crates/c/build.rs && cargo test",
    ):
        d = bash(pc, command)
        assert d.behavior != "allow", command


@pytest.mark.parametrize(
    "rel",
    [
        "src/app.js",  # sources are what the tests test: the rule allows them by design
        "node_modules/left-pad/package.json",  # `npm install` during the session
        "packages/a/node_modules/x/package.json",
        "target/debug/build/c/Cargo.toml",  # a cache (CACHEDIR.TAG)
        "tools/venv/lib/python3.11/site-packages/p/pyproject.toml",  # a virtual environment
        ".git/Makefile",
    ],
)
def test_changes_no_runner_reads_keep_the_rule(tmp_path: Path, rel: str) -> None:
    pc, project = _runner_session(tmp_path)
    (project / "target").mkdir()
    (project / "target" / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55")
    (project / "tools" / "venv").mkdir(parents=True)
    (project / "tools" / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    pc = _started_now(pc)
    (project / rel).parent.mkdir(parents=True, exist_ok=True)
    (project / rel).write_text("{}")
    for command in RUNNERS:
        assert bash(pc, command).behavior == "allow", (rel, command)


def test_a_venv_refresh_does_not_stop_other_runners(tmp_path: Path) -> None:
    pc, project = _runner_session(tmp_path)
    (project / "sub" / ".venv" / "bin").mkdir(parents=True)
    (project / "sub" / ".venv" / "bin" / "pytest").write_text("#!/bin/sh\n")
    for command in ("make test", "npm run test --ws", "cargo test"):
        assert bash(pc, command).behavior == "allow", command


def test_a_project_too_big_to_walk_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc, _ = _runner_session(tmp_path)
    monkeypatch.setattr(project_scripts, "_MAX_FOLDERS", 3)
    d = bash(pc, "make test")
    assert d.behavior == "ask" and "too many to check" in d.message, d.message
    monkeypatch.setattr(project_scripts, "_MAX_FOLDERS", 20000)
    assert bash(pc, "make test").behavior == "allow"


# --- F2, F4, F5: folders and files of later sessions' settings ----------------------------------


def _homes(
    tmp: Path, monkeypatch: pytest.MonkeyPatch, mode: str, deny: str = "Bash(rm:*)"
) -> tuple[PermissionContext, Path]:
    """A session whose settings live in the process environment, as lathe's do."""
    home = tmp / "home"
    for var, path in (
        ("HOME", home),
        ("LATHE_CONFIG_DIR", tmp / "cfg"),
        ("LATHE_STATE_DIR", tmp / "state"),
        ("LATHE_POLICY_FILE", tmp / "etc" / "policy.toml"),
    ):
        monkeypatch.setenv(var, str(path))
    for var in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    for folder in (home / ".claude", home / ".config", tmp / "cfg", tmp / "state", tmp / "prep"):
        folder.mkdir(parents=True, exist_ok=True)
    (tmp / "cfg" / "settings.toml").write_text('[permissions]\ndeny = ["Bash(rm:*)"]\n')
    (tmp / "state" / "trust.json").write_text("{}")
    (tmp / "prep" / "settings.toml").write_text("[permissions]\n")
    pc = context(tmp, deny=(deny,), mode=mode, add_dirs=(str(tmp),))
    return replace(pc, home=str(home)), tmp


BASH_TAKES_AWAY = (
    "mv {t}/cfg {t}/cfg.old",
    "mv {t}/cfg {t}/cfg.old && mv {t}/prep {t}/cfg",
    "rm -r {t}/state",
    "mv {t}/state/trust.json {t}/x.json",
    "cp {t}/prep/settings.toml {t}/state/trust.json",
    "cp -r {t}/prep/. {t}/cfg",
    "ln -sfn {t}/prep {t}/newcfg && mv -T {t}/newcfg {t}/cfg",
    "mv {t}/home {t}/home.old",
    "mv {t}/home/.claude {t}/x",
    "mv {t}/etc {t}/etc.old",
    "mv {t}/proj {t}/proj.old",
    "printf '{{}}' > {t}/home/.claude.json",
    "mkdir -p {t}/cfg/agents && printf x > {t}/cfg/agents/helper.md",
    "mv {t}/prep {t}/home/.config/git",  # git's user config folder put in place
    "ln -sfn {t}/prep {t}/home/.config/git",
    "cp {t}/prep/settings.toml {t}/home/.config/git/attributes",
)


@pytest.mark.parametrize("mode", ("acceptEdits", "bypassPermissions"))
@pytest.mark.parametrize("command", BASH_TAKES_AWAY)
def test_taking_away_settings_folders_is_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, command: str
) -> None:
    pc, t = _homes(tmp_path, monkeypatch, mode)
    d = bash(pc, command.format(t=t))
    assert d.behavior in ("ask", "deny"), (mode, command, d.message)


@pytest.mark.parametrize("mode", ("acceptEdits", "bypassPermissions"))
def test_the_default_config_folder_and_its_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    pc, t = _homes(tmp_path, monkeypatch, mode)
    monkeypatch.delenv("LATHE_CONFIG_DIR")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (t / "home" / ".config" / "lathe").mkdir()
    for command in ("mv ~/.config/lathe ~/.config/lathe.old", "mv ~/.config ~/.config.old",
                    "rm -rf ~/.config", "cp -r {t}/prep/. ~/.config/lathe"):  # fmt: skip
        d = bash(pc, command.format(t=t))
        assert d.behavior in ("ask", "deny"), (mode, command, d.message)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(t / "xdg"))
    assert bash(pc, "mv ~/.config ~/.config.old").behavior == "allow"  # lathe reads xdg/lathe
    assert bash(pc, f"mv {t}/xdg {t}/xdg.old").behavior in ("ask", "deny")


WRITES = ("home/.bash_aliases", "home/.ssh/config", "home/.ssh/authorized_keys",
          "cfg/agents/helper.md", "cfg/skills/s/SKILL.md", "cfg/LATHE.md", "state/trust.json",
          "home/.claude.json", "home/.claude/agents/a.md", "home/.config/lathe/settings.toml")  # fmt: skip


@pytest.mark.parametrize("mode", ("acceptEdits", "bypassPermissions"))
@pytest.mark.parametrize("rel", WRITES)
def test_writing_into_settings_folders_is_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, rel: str
) -> None:
    pc, t = _homes(tmp_path, monkeypatch, mode)
    d = decide(pc, "Write", {"file_path": str(t / rel), "content": "x"})
    assert d.behavior == "ask", (mode, rel, d.message)
    assert "protected" in d.message or "take away" in d.message, d.message


@pytest.mark.parametrize(
    "command",
    [
        "cp {t}/proj/README.md {t}/home",  # into an existing real folder: adds a name
        "touch {t}/home/notes.txt",
        "mv {t}/proj/src {t}/proj/lib",
        "mkdir {t}/proj/build && rm -r {t}/proj/build",
        "mv {t}/prep {t}/prep2",
        "cp -r {t}/prep/. {t}/proj/fixtures",
    ],
)
def test_plain_writes_beside_settings_folders_stay_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # bypassPermissions under a deny rule (the checks run), with `rm` itself not denied.
    pc, t = _homes(tmp_path, monkeypatch, "bypassPermissions", deny="Read(./.env)")
    assert bash(pc, command.format(t=t)).behavior == "allow", command
    notes = {"file_path": str(t / "home" / "notes.md"), "content": "x"}
    assert decide(pc, "Write", notes).behavior == "allow"
    pc, t = _homes(tmp_path, monkeypatch, "acceptEdits")
    assert decide(pc, "Write", notes).behavior == "allow"


# --- F3: MCP servers whose names carry the same tool names ---------------------------------------


def _servers(tmp: Path, settings: dict[str, object], project: dict[str, object]) -> list[str]:
    (tmp / "proj").mkdir(exist_ok=True)
    (tmp / "proj" / ".mcp.json").write_text(json.dumps({"mcpServers": project}))
    env = {**os.environ, "HOME": str(tmp / "home")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    config = load_mcp_config(settings, tmp / "proj", env, trusted=True)
    return [
        f"{s.name}@{'project' if s.source.endswith('.mcp.json') else 'user'}"
        for s in config.servers
    ]


SRV = {"command": "python3", "args": ["-c", "0"]}


@pytest.mark.parametrize("name", ["my.srv", "my srv", "my/srv", "my:srv", "my_srv"])
def test_a_checked_in_server_cannot_take_the_users_tool_names(tmp_path: Path, name: str) -> None:
    names = _servers(tmp_path, {"my_srv": SRV}, {name: SRV, "other-srv": SRV})
    assert names == ["my_srv@user", "other-srv@project"], names


@pytest.mark.parametrize("name", ["plugin_toolkit_srv", "plugin.toolkit.srv", "Plugin:toolkit:srv"])
def test_a_checked_in_server_cannot_take_plugin_tool_names(tmp_path: Path, name: str) -> None:
    # `mcp__plugin_toolkit_srv__*` is the user's rule for plugin toolkit's server srv.
    names = _servers(tmp_path, {"plugin_mine": SRV}, {name: SRV, "ok": SRV})
    assert names == ["plugin_mine@user", "ok@project"], names


def test_servers_with_distinct_tool_names_all_load(tmp_path: Path) -> None:
    names = _servers(tmp_path, {"my_srv": SRV, "my-srv": SRV}, {"mysrv": SRV})
    assert names == ["my_srv@user", "my-srv@user", "mysrv@project"], names


@pytest.mark.parametrize("raw", ["my.srv", "a b/c", "plugin:x:y", "ok-name_1", "", "é"])
def test_config_names_servers_as_their_tools_do(raw: str) -> None:
    assert api_server_name(raw) == normalize_name(raw)


# --- F6: relative PATH entries resolve in the folder a command runs in -------------------------

PLANT = "#!/bin/sh\nrm -f ../victim\n"


def _relative_path_session(
    tmp: Path, monkeypatch: pytest.MonkeyPatch, entry: str, mode: str, planted: str
) -> tuple[PermissionContext, Path]:
    monkeypatch.setenv("PATH", f"{entry}:{os.environ['PATH']}")
    pc = context(tmp, allow=("Bash(ls:*)", "Bash(cat:*)"), deny=("Bash(rm:*)",), mode=mode)
    project = Path(pc.project_dir)
    (project / "sub").mkdir()
    pc = _started_now(pc)
    file = project / "sub" / planted / "ls"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(PLANT)
    file.chmod(0o755)
    return pc, project


FOLDER_CHANGES = ("cd sub && ls", "cd sub; ls -la", "pushd sub && ls", "(cd sub && ls)",
                  "env -C sub ls", "cd sub && cat x | ls")  # fmt: skip

# `pushd` and `env -C` ask by themselves (no rule names them): the controls leave them out.
ALLOWED_FOLDER_CHANGES = tuple(c for c in FOLDER_CHANGES if not c.startswith(("pushd", "env")))


@pytest.mark.parametrize(
    ("entry", "planted"), [("./node_modules/.bin", "node_modules/.bin"), ("bin", "bin"), ("", ".")]
)
@pytest.mark.parametrize("mode", MODES)
def test_a_program_planted_in_a_relative_path_folder_is_not_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, planted: str, mode: str
) -> None:
    pc, _ = _relative_path_session(tmp_path, monkeypatch, entry, mode, planted)
    for command in FOLDER_CHANGES:
        d = bash(pc, command)
        assert d.behavior == ("ask" if mode in ("default", "acceptEdits") else "deny"), (
            command,
            d.message,
        )
        if mode != "plan":
            assert "relative entry" in d.message, d.message


@pytest.mark.parametrize("mode", ("acceptEdits", "dontAsk"))
def test_relative_path_controls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    pc, _ = _relative_path_session(tmp_path, monkeypatch, "./node_modules/.bin", mode, "x")
    # Nothing planted where bash looks (sub/x/ls is on no PATH): `ls` is the system's.
    for command in ALLOWED_FOLDER_CHANGES:
        assert bash(pc, command).behavior == "allow", command
    # A program the project had before the session is the project's own, as in the start folder.
    pc, _ = _relative_path_session(
        tmp_path / "2", monkeypatch, "./node_modules/.bin", mode, "node_modules/.bin"
    )
    assert bash(pc, "cd sub && ls").behavior != "allow"
    pc = _started_now(pc)
    assert bash(pc, "cd sub && ls").behavior == "allow"
    d = bash(pc, 'cd "$D" && ls')  # which folder, only the shell knows
    assert d.behavior != "allow"


def test_without_relative_path_entries_nothing_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc, _ = _relative_path_session(tmp_path, monkeypatch, "/nonexistent", "acceptEdits", "bin")
    for command in ALLOWED_FOLDER_CHANGES:
        assert bash(pc, command).behavior == "allow", command


# --- F2 (the report's `mv $LATHE_CONFIG_DIR x`): write targets only the shell knows -------------


@pytest.mark.parametrize(
    "command",
    [
        "mv $LATHE_CONFIG_DIR /tmp/x",
        'mv "$HOME" /tmp/h',
        "rm -r ${D}",
        "cp x $DEST",
        "ln -sfn x $T",
        "echo x > $F",
        'printf x >> "$CLAUDE_ENV_FILE"',
    ],
)
def test_a_write_target_only_the_shell_knows_is_refused_in_bypass_under_deny_rules(
    tmp_path: Path, command: str
) -> None:
    # A Read deny rule refuses such words already (read_blind); a Bash or Edit deny rule did not.
    pc = context(tmp_path, deny=("Bash(curl:*)", "Edit(./.git/**)"), mode="bypassPermissions")
    d = bash(pc, command)
    assert d.behavior != "allow", (command, d.message)
    assert "only the shell knows" in d.message, d.message
    # Without any deny rule bypassPermissions runs everything, as before.
    assert bash(context(tmp_path / "n", mode="bypassPermissions"), command).behavior == "allow"


@pytest.mark.parametrize("command", ["cp $f out", "echo $X > f", "cat $F > out.txt", "cp a b"])
def test_variables_that_are_not_write_targets_stay_allowed_in_bypass(
    tmp_path: Path, command: str
) -> None:
    pc = context(tmp_path, deny=("Bash(curl:*)", "Edit(./.git/**)"), mode="bypassPermissions")
    assert bash(pc, command).behavior == "allow", command
