"""Review round 6's test gaps (issue 13), through the real composition root: an `Agent(TYPE)`
deny rule holds where the folder is not trusted (mutant S4: the check must never depend on
trust), and ACP's "always reject" updates are applied by the engine's prompter for a deny
(mutant S3: updates applied for allows only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import CliOptions
from app.compose import build_session
from app.engine import answers
from app.engine.prompter import EventPrompter
from app.engine.subagents import UnknownAgentType
from tests.fakeapi.server import FakeAPI
from tests.support.engine import Collector, fake_env


def _session(fake_api: FakeAPI, project: Path, *, trusted: bool):
    (project / ".git").mkdir(exist_ok=True)
    settings = project / ".lathe" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[permissions]\ndeny = ["Agent(Explore)"]\n')
    setup = build_session(
        CliOptions(),
        interactive=True,  # the TUI's composition: `trusted` is the folder's trust as given
        cwd=project,
        env=fake_env(fake_api),
        sink=Collector(),
        trusted=trusted,
    )
    return setup.session


@pytest.mark.parametrize("trusted", [True, False])
def test_an_agent_type_deny_rule_holds_trusted_or_not(
    fake_api: FakeAPI, project: Path, trusted: bool
) -> None:
    session = _session(fake_api, project, trusted=trusted)
    assert session.parts.rules is not None and session.parts.rules.context.trusted is trusted
    subagents = session.context.subagents
    assert subagents is not None
    with pytest.raises(UnknownAgentType, match="denied"):
        subagents.find("Explore")
    assert subagents.find("general-purpose").name == "general-purpose"


def test_always_reject_saves_its_deny_rules_through_the_prompter(
    fake_api: FakeAPI, project: Path
) -> None:
    session = _session(fake_api, project, trusted=True)
    rules = session.parts.rules
    assert rules is not None
    EventPrompter(rules, session).remember(answers.deny_always(("Bash(rm:*)",)))
    assert "Bash(rm:*)" in {r.display() for r in rules.context.deny}
    saved = (project / ".lathe" / "settings.local.toml").read_text()
    assert "Bash(rm:*)" in saved
