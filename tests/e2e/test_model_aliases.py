"""Claude Code's model aliases for the session's own model and in frontmatter (ext-r4 F7, F11),
through the real `lathe -p` and the HTTP fake: `opus`, `haiku`, `sonnet[1m]` in `--model`, the
settings' `model` or ANTHROPIC_MODEL reach the API as the ids Claude Code 2.1.332 sends, `[1m]`
adds the 1M window's beta header, and `model: inherit` in a command keeps the session's model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.model.scenario import text_turn
from tests.e2e.test_headless_cli import env_for, lathe

EXTENDED_BETA = "context-1m-2025-08-07"


def _run(fake_api, project: Path, prompt: str = "hi", *args: str, **env: str) -> None:
    (project / ".git").mkdir(exist_ok=True)
    fake_api.load([text_turn("ok")])
    proc = lathe(
        ["-p", prompt, "--output-format", "json", *args], project, env_for(fake_api, **env)
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["is_error"] is False


def _last(fake_api) -> tuple[str, str]:
    rec = [r for r in fake_api.requests if r.status == 200][-1]
    beta = {k.lower(): v for k, v in rec.headers.items()}.get("anthropic-beta", "")
    return rec.body["model"], beta


def _claude_settings(body: dict) -> None:
    path = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body))


def test_the_model_flag_resolves_an_alias(fake_api, project):
    _run(fake_api, project, "hi", "--model", "opus")
    assert _last(fake_api) == ("claude-opus-5-5", "")


def test_the_settings_model_resolves_an_alias(fake_api, project):
    _claude_settings({"model": "haiku"})
    _run(fake_api, project)
    assert _last(fake_api)[0] == "claude-haiku-5-5"


def test_anthropic_model_resolves_an_alias_and_its_override(fake_api, project):
    _run(fake_api, project, ANTHROPIC_MODEL="sonnet")
    assert _last(fake_api)[0] == "claude-sonnet-5-5"
    _run(fake_api, project, ANTHROPIC_MODEL="sonnet", ANTHROPIC_DEFAULT_SONNET_MODEL="my-sonnet")
    assert _last(fake_api)[0] == "my-sonnet"


def test_a_full_id_is_sent_as_written(fake_api, project):
    _run(fake_api, project, "hi", "--model", "claude-opus-4-1")
    assert _last(fake_api) == ("claude-opus-4-1", "")


def test_the_1m_suffix_is_dropped_and_asks_for_the_window_where_offered(fake_api, project):
    # Claude Code 2.1.332, measured: `sonnet[1m]` sends claude-sonnet-5-5 with no 1M beta;
    # `claude-sonnet-4-6[1m]` sends claude-sonnet-4-6 with context-1m-2025-08-07.
    _claude_settings({"model": "sonnet[1m]"})
    _run(fake_api, project)
    model, beta = _last(fake_api)
    assert model == "claude-sonnet-5-5"
    assert EXTENDED_BETA not in beta.split(",")
    _run(fake_api, project, "hi", "--model", "claude-sonnet-4-6[1M]")
    model, beta = _last(fake_api)
    assert model == "claude-sonnet-4-6"
    assert EXTENDED_BETA in beta.split(",")


def test_command_model_inherit_keeps_the_session_model(fake_api, project):
    cmds = project / ".claude" / "commands"
    cmds.mkdir(parents=True)
    (cmds / "inh.md").write_text("---\nmodel: inherit\n---\nkeep the model\n")
    (cmds / "big.md").write_text("---\nmodel: opus[1m]\n---\nbig model\n")
    _run(fake_api, project, "/inh", "--model", "claude-opus-4-1")
    assert _last(fake_api)[0] == "claude-opus-4-1"
    _run(fake_api, project, "/big", "--model", "claude-opus-4-1")
    assert _last(fake_api)[0] == "claude-opus-5-5"
