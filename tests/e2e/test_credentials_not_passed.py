"""lathe's credentials never reach the programs it starts: a Bash command running `printenv`, a
hook dumping its environment, an MCP stdio server reporting its own. Real `lathe -p`, real
processes, the HTTP fake of the API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from app.model.scenario import text_turn, tool_use_block, turn_of
from tests.e2e.test_headless_cli import env_for, lathe

SERVER = Path(__file__).resolve().parent / "servers" / "env_dump_server.py"
SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api-SECRET-1",
    "CLAUDE_CODE_OAUTH_TOKEN": "SECRET-3-oauth",
    "ANTHROPIC_CUSTOM_HEADERS": "x-api-key: SECRET-4",
    "ANTHROPIC_VERTEX_SECRET": "SECRET-5",
    "LATHE_TEST_API_KEY": "SECRET-6",
}


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".git").mkdir()
    settings = project / ".lathe" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text(
        "[hooks]\n"
        'PreToolUse = [ { matcher = "Bash", hooks = [ { command = "env > hook_env.txt" } ] } ]\n'
        "[mcp.servers.envdump]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}, {json.dumps(str(project / 'mcp_env.json'))}]\n"
    )
    return project


def _run(fake_api, repo: Path) -> dict[str, str]:
    fake_api.load(
        [
            turn_of([tool_use_block("Bash", {"command": "printenv > bash_env.txt"}, "b1")]),
            text_turn("ok"),
        ]
    )
    env = env_for(fake_api, HARMLESS_VAR="still-here", **SECRETS)
    proc = lathe(["-p", "go", "--allowedTools", "Bash"], repo, env)
    assert proc.returncode == 0, proc.stderr
    return {
        "bash": (repo / "bash_env.txt").read_text(),
        "hook": (repo / "hook_env.txt").read_text(),
        "mcp": (repo / "mcp_env.json").read_text(),
    }


def test_no_credential_reaches_bash_hooks_or_mcp_servers(fake_api, repo: Path) -> None:
    dumps = _run(fake_api, repo)
    for who, text in dumps.items():
        for name, value in SECRETS.items():
            assert value not in text, f"{name} reached {who}"
        assert "HARMLESS_VAR" not in text or "still-here" in text
    # Ordinary variables still get through where the whole environment does; the base URL is
    # a location, not a credential.
    for who in ("bash", "hook"):
        assert "HARMLESS_VAR=still-here" in dumps[who]
        assert f"ANTHROPIC_BASE_URL={fake_api.url}" in dumps[who]
    assert "CLAUDE_PROJECT_DIR=" in dumps["hook"]


def test_a_setting_passes_one_on_by_name(fake_api, repo: Path) -> None:
    user = Path(os.environ["LATHE_CONFIG_DIR"]) / "settings.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('passthrough_env = ["ANTHROPIC_API_KEY"]\n')
    dumps = _run(fake_api, repo)
    for who, text in dumps.items():
        assert SECRETS["ANTHROPIC_API_KEY"] in text, who
        for name, value in SECRETS.items():
            if name != "ANTHROPIC_API_KEY":
                assert value not in text, f"{name} reached {who}"


def test_an_untrusted_style_project_file_cannot_pass_credentials(fake_api, repo: Path) -> None:
    # Project files are trusted in -p; this checks the merge rule directly on the real files.
    from app.config import load_settings

    local = repo / ".lathe" / "settings.local.toml"
    local.write_text('passthrough_env = ["ANTHROPIC_API_KEY"]\n')
    loaded = load_settings(repo)
    assert loaded.merged(trusted=True).passthrough_env == ["ANTHROPIC_API_KEY"]
    assert loaded.merged(trusted=False).passthrough_env == []


def test_base_url_with_a_password_is_a_credential() -> None:
    from tools.process.child_env import child_env

    env = {
        "ANTHROPIC_BASE_URL": "https://user:pw@proxy.example/",
        "ANTHROPIC_MODEL": "m",
        "PATH": "/bin",
    }
    # CLAUDECODE=1 is added to every child, as Claude Code does.
    assert child_env(env, ()) == {"ANTHROPIC_MODEL": "m", "PATH": "/bin", "CLAUDECODE": "1"}
    assert child_env({"ANTHROPIC_BASE_URL": "https://proxy.example/"}, ()) != {}
    # The SDK refuses a key and a token together, so the token is checked here, not end to end.
    assert child_env({"ANTHROPIC_AUTH_TOKEN": "t", "LATHE_SESSION_ID": "s"}, ()) == {
        "LATHE_SESSION_ID": "s",
        "CLAUDECODE": "1",
    }


def test_lathe_makes_itself_non_dumpable() -> None:
    # So a command cannot `cat /proc/$PPID/environ` (the key is in lathe's own environment).
    code = (
        "import ctypes; from tools.process.child_env import protect_own_process; "
        "assert protect_own_process(); print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert out.stdout.strip() == "0"  # PR_GET_DUMPABLE: not dumpable


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs root to run lathe as another user (root may read any /proc file)",
)
def test_a_command_cannot_read_the_key_from_lathes_own_proc_environ(fake_api) -> None:
    # As an ordinary user: `cat /proc/$PPID/environ` is what an attacker tries after printenv.
    base = Path(tempfile.mkdtemp(prefix="lathe-nobody-"))
    try:
        project = base / "project"
        for folder in (project / ".git", base / "home", base / "state", base / "config"):
            folder.mkdir(parents=True)
        # The permission check refuses `/proc/*/environ` on the command line; a script hides the
        # path from it, so this tests the layer below: the kernel refusing a non-dumpable process.
        (project / "leak.sh").write_text(
            "cat /proc/$PPID/environ > leaked.txt; echo rc=$? > rc.txt\n"
        )
        for folder in (base, *base.rglob("*")):
            os.chown(folder, 65534, 65534)
        fake_api.load(
            [
                turn_of(
                    [
                        tool_use_block(
                            "Bash",
                            {"command": "exec sh leak.sh"},
                            "b1",
                        )
                    ]
                ),
                text_turn("ok"),
            ]
        )
        env = env_for(
            fake_api,
            HOME=str(base / "home"),
            LATHE_STATE_DIR=str(base / "state"),
            LATHE_CONFIG_DIR=str(base / "config"),
            XDG_CONFIG_HOME=str(base / "home" / ".config"),
            XDG_STATE_HOME=str(base / "home" / ".local" / "state"),
            LATHE_POLICY_FILE=str(base / "no-policy.toml"),
            ANTHROPIC_API_KEY="sk-ant-PROC-SECRET",
        )
        proc = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                sys.executable,
                "-m",
                "app",
                "-p",
                "go",
                "--allowedTools",
                "Bash",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert (project / "rc.txt").read_text().strip() != "rc=0"
        assert "PROC-SECRET" not in (project / "leaked.txt").read_text(errors="replace")
    finally:
        shutil.rmtree(base, ignore_errors=True)
