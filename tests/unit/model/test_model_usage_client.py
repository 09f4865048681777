"""Usage and cost accounting; model and credential selection (without importing the SDK)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.model.client import (
    DEFAULT_MODEL,
    MissingCredentials,
    has_credentials,
    make_api_client,
    open_backend,
    select_model,
)
from app.model.usage import UsageTracker, price_for


def test_cost_for_known_model_with_cache() -> None:
    tracker = UsageTracker()
    cost = tracker.add(
        "claude-sonnet-4-6",
        {
            "input_tokens": 1_000_000,
            "output_tokens": 1_000_000,
            "cache_read_input_tokens": 1_000_000,
            "cache_creation_input_tokens": 1_000_000,
        },
    )
    assert cost == pytest.approx(3 + 15 + 0.30 + 3.75)
    tracker.add("claude-haiku-4-5-20251001", {"input_tokens": 2_000_000, "output_tokens": None})
    assert tracker.by_model["claude-haiku-4-5-20251001"].cost_usd == pytest.approx(2.0)
    assert tracker.total_cost_usd == pytest.approx(24.05)
    assert tracker.totals()["input_tokens"] == 3_000_000
    assert tracker.cache_hit_ratio() == pytest.approx(1 / 5)


def test_unknown_model_costs_zero_and_says_so() -> None:
    tracker = UsageTracker()
    assert tracker.add("my-local-llama", {"input_tokens": 500, "output_tokens": 10}) == 0.0
    assert tracker.unpriced_models == ["my-local-llama"]
    assert "cost unknown" in tracker.summary()
    assert tracker.totals()["output_tokens"] == 10


def test_price_prefixes() -> None:
    assert price_for("claude-opus-4-5-20251101") == price_for("claude-opus-4-5")
    assert price_for("claude-opus-4-1").input == 15  # type: ignore[union-attr]
    assert price_for("claude-opus-4-5").input == 5  # type: ignore[union-attr]
    assert price_for("gpt-4") is None


def test_sdk_usage_object_is_accepted() -> None:
    from anthropic.types import Usage

    tracker = UsageTracker()
    tracker.add(
        "claude-opus-4-6", Usage(input_tokens=10, output_tokens=20, cache_read_input_tokens=None)
    )
    assert tracker.totals() == {
        "input_tokens": 10,
        "output_tokens": 20,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }


def test_model_precedence() -> None:
    env = {"ANTHROPIC_MODEL": "from-env"}
    assert select_model("flag", "settings", env) == "flag"
    assert select_model(None, "settings", env) == "settings"
    assert select_model(None, None, env) == "from-env"
    assert select_model(None, "  ", {}) == DEFAULT_MODEL


def test_credentials() -> None:
    assert not has_credentials({})
    assert not has_credentials({"ANTHROPIC_API_KEY": "  "})
    assert has_credentials({"ANTHROPIC_AUTH_TOKEN": "t"})
    with pytest.raises(MissingCredentials, match="--model demo"):
        make_api_client({})


def test_client_from_env() -> None:
    client = make_api_client({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert str(client.base_url).startswith("http://127.0.0.1:9")
    assert client.api_key == "k"


def test_backend_choice(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert open_backend(env={}, cwd=tmp_path).kind == "demo"
    assert (
        open_backend(model_flag="demo", env={"ANTHROPIC_API_KEY": "k"}, cwd=tmp_path).kind == "demo"
    )
    with pytest.raises(MissingCredentials):
        open_backend(env={}, fallback_to_demo=False)
    api = open_backend(env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_MODEL": "claude-opus-4-6"})
    assert (api.kind, api.model, api.offline) == ("api", "claude-opus-4-6", False)
    script = tmp_path / "s.json"
    script.write_text("[]")
    assert open_backend(model_script=script, env={}).kind == "script"


def test_importing_model_modules_does_not_import_anthropic() -> None:
    code = (
        "import sys, app.model.client, app.model.request, app.model.usage, app.model.scenario;"
        "print('anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
