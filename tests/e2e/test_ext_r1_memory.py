"""ext-r1 memory findings through the real `lathe -p` and the HTTP fake: what reaches the system
prompt from a hostile project's CLAUDE.md (F1), symlink loops (F3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe


def _system(fake_api) -> str:
    return "".join(b["text"] for b in fake_api.bodies()[0]["system"])


def _home(project: Path) -> Path:
    home = project.parent / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    return home


def test_imports_obey_read_denies_and_never_reach_process_or_credential_files(fake_api, project):
    (project / ".git").mkdir()
    home = _home(project)
    (home / ".secret").write_text("HOME-SECRET")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("SSH-KEY")
    (home / ".netrc").write_text("NETRC-SECRET")
    (home / ".claude" / ".credentials.json").write_text('{"t": "CRED-SECRET"}')
    (home / "ok.md").write_text("HOME-IMPORT-OK")
    (project / ".env").write_text("DOTENV-SECRET")
    (project / "fine.md").write_text("PROJECT-IMPORT-OK")
    (project / "link").symlink_to("/proc/self/environ")
    (project / "CLAUDE.md").write_text(
        "Project memory.\n@.env\n@~/.secret\n@/proc/self/environ\n@link\n@/proc/1/environ\n"
        "@/sys/kernel/hostname\n@~/.ssh/id_ed25519\n@~/.netrc\n@~/.claude/.credentials.json\n"
        "@fine.md\n@~/ok.md\n"
    )
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"]}})
    )
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(~/.secret)"]}})
    )
    fake_api.load([text_turn("ok")])
    # Trusted: an untrusted folder's memory imports nothing from outside it at all (ext-r2 F11,
    # tests/e2e/test_ext_r2_extensions.py); here the guard's floor is what is tested.
    from app.permissions.trust import set_trusted

    set_trusted(project, True)
    env = env_for(fake_api, HOME=str(home), SENTINEL_VAR="ENVIRON-LEAKED")
    proc = lathe(["-p", "hi"], project, env)
    assert proc.returncode == 0, proc.stderr
    system = _system(fake_api)
    assert "Project memory." in system
    assert "PROJECT-IMPORT-OK" in system and "HOME-IMPORT-OK" in system
    for secret in (
        "DOTENV-SECRET",
        "HOME-SECRET",
        "ENVIRON-LEAKED",
        env["ANTHROPIC_API_KEY"] + "\x00",
        "SSH-KEY",
        "NETRC-SECRET",
        "CRED-SECRET",
    ):
        assert secret not in system, secret
    assert "ANTHROPIC_BASE_URL" not in system
    assert "not loaded" in proc.stderr and ".env" in proc.stderr


def test_a_read_deny_rule_keeps_a_whole_memory_file_out(fake_api, project):
    (project / ".git").mkdir()
    (project / "CLAUDE.md").write_text("DENIED-MEMORY")
    (project / "CLAUDE.local.md").write_text("LOCAL-MEMORY")
    fake_api.load([text_turn("ok")])
    proc = lathe(
        ["-p", "hi", "--disallowedTools", "Read(./CLAUDE.md)"],
        project,
        env_for(fake_api, HOME=str(_home(project))),
    )
    assert proc.returncode == 0, proc.stderr
    system = _system(fake_api)
    assert "DENIED-MEMORY" not in system and "LOCAL-MEMORY" in system


def test_symlink_loops_in_memory_files_are_skipped_with_a_warning(fake_api, project):
    (project / ".git").mkdir()
    os.symlink("loop2.md", project / "loop1.md")
    os.symlink("loop1.md", project / "loop2.md")
    (project / "CLAUDE.local.md").symlink_to("CLAUDE.local.md")
    (project / "CLAUDE.md").write_text("Top memory.\n@loop1.md\n@self.md\n")
    os.symlink("self.md", project / "self.md")
    (project / ".claude" / "rules").mkdir(parents=True)
    os.symlink("r.md", project / ".claude" / "rules" / "r.md")
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api, HOME=str(_home(project))))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Top memory." in _system(fake_api)
    assert "loop" in proc.stderr


def test_transcripts_and_their_folders_are_the_users_alone(fake_api, project, tmp_path):
    (project / ".git").mkdir()
    state = tmp_path / "state"
    fake_api.load(
        [
            turn_of(
                [
                    tool_use_block(
                        "Agent", {"description": "d", "prompt": "P", "subagent_type": "Explore"}
                    )
                ]
            ),
            text_turn("sub"),
            text_turn("done"),
        ]
    )
    old = os.umask(0o022)
    try:
        proc = lathe(
            ["-p", "hi"],
            project,
            env_for(fake_api, HOME=str(_home(project)), LATHE_STATE_DIR=str(state)),
        )
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    files = [p for p in (state / "projects").rglob("*") if p.is_file()]
    folders = [p for p in (state / "projects").rglob("*") if p.is_dir()]
    assert any(p.name.startswith("agent-") and p.suffix == ".jsonl" for p in files)
    assert any(p.name.endswith(".meta.json") for p in files)
    for path in files:
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
    for path in [state / "projects", *folders]:
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))


def test_claude_md_above_the_git_root_and_user_rules_load(fake_api, tmp_path):
    outer = tmp_path / "work"
    project = outer / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("PROJECT-MEMORY")
    (outer / "CLAUDE.md").write_text("ABOVE-GIT-ROOT")
    (outer / "CLAUDE.local.md").write_text("ABOVE-LOCAL")
    home = tmp_path / "home"
    (home / ".claude" / "rules").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("USER-MEMORY")
    (home / ".claude" / "rules" / "u.md").write_text("USER-RULE")
    (home / ".claude" / "rules" / "py.md").write_text(
        '---\npaths:\n  - "**/*.py"\n---\nUSER-PY-RULE\n'
    )
    fake_api.load([text_turn("ok")])
    proc = lathe(["-p", "hi"], project, env_for(fake_api, HOME=str(home)))
    assert proc.returncode == 0, proc.stderr
    system = _system(fake_api)
    order = [
        system.index(t)
        for t in ("USER-MEMORY", "USER-RULE", "ABOVE-GIT-ROOT", "PROJECT-MEMORY", "ABOVE-LOCAL")
    ]
    assert order == sorted(order)
    assert "USER-PY-RULE" not in system  # conditional: attached when a .py file is worked on
    assert f"Contents of {outer / 'CLAUDE.md'} (project instructions" in system
    assert f"Contents of {home / '.claude' / 'rules' / 'u.md'} (user's private global" in system
