"""A stream-json session without --system-prompt gets lathe's own introduction (the API's
DEFAULT_INTRO), not an empty one; `--system-prompt ""` gets the SDK's short one (P14)."""

from __future__ import annotations

from app.engine.api import DEFAULT_INTRO
from app.protocol.flags import ProtocolOptions
from app.protocol.options import SDK_DEFAULT_INTRO, intro_for


def test_no_system_prompt_means_lathes_introduction() -> None:
    assert DEFAULT_INTRO.startswith("You are lathe, an interactive coding agent")
    assert intro_for(ProtocolOptions(input_format="stream-json")) == DEFAULT_INTRO
    assert intro_for(ProtocolOptions(system_prompt="")) == SDK_DEFAULT_INTRO
    assert intro_for(ProtocolOptions(system_prompt="Be brief.")) == "Be brief."
