"""Which model to talk to and the client that talks to it.

`anthropic` is imported only inside the functions that build a client, and through
app.model.lazy_sdk: the SDK's own `import anthropic` costs over a second, and `lathe --version`,
`--help`, the first TUI frame and the first request must not pay for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.model import lazy_sdk

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_MODEL = "claude-sonnet-4-6"
CONNECT_TIMEOUT_S = 10.0  # opening a TCP (and TLS) connection: a short limit, as in the SDK
DEMO_MODEL = "demo"

NO_CREDENTIALS_MESSAGE = (
    "No Anthropic credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), "
    "or run the offline demo with --model demo."
)


class MissingCredentials(RuntimeError):
    pass


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def has_credentials(env: Mapping[str, str] | None = None) -> bool:
    e = _env(env)
    return bool(e.get("ANTHROPIC_API_KEY", "").strip() or e.get("ANTHROPIC_AUTH_TOKEN", "").strip())


def select_model(
    flag: str | None = None,
    settings_model: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """The model id: `--model` beats settings beats ANTHROPIC_MODEL beats the default. An alias
    (`opus`, `sonnet[1m]`) is the id Claude Code sends for it (app/config/model_aliases.py)."""
    from app.config.model_aliases import resolve_alias

    e = _env(env)
    if flag is not None and flag.strip().lower() == "default":
        # `--model default` is the default model (Claude Code 2.1.332 sends its own, measured,
        # ext-r5 F5); settings' `"model": "default"` goes through as written there and here.
        return DEFAULT_MODEL
    named = _named_model(flag, settings_model, e)
    return resolve_alias(named, e) if named else DEFAULT_MODEL


def _named_model(flag: str | None, settings_model: str | None, env: Mapping[str, str]) -> str:
    for candidate in (flag, settings_model, env.get("ANTHROPIC_MODEL")):
        if candidate and candidate.strip():
            return candidate.strip()
    return ""


def _backend(
    client: AsyncAnthropic,
    flag: str | None,
    settings_model: str | None,
    env: Mapping[str, str] | None,
    kind: BackendKind,
) -> ModelBackend:
    from app.config.model_aliases import asks_extended_window

    named = _named_model(flag, settings_model, _env(env))
    model = select_model(flag, settings_model, env)
    return ModelBackend(client, model, kind, extended=asks_extended_window(named))


def make_api_client(
    env: Mapping[str, str] | None = None, *, max_retries: int = 2, timeout: float = 600.0
) -> AsyncAnthropic:
    """The real API client from the environment; MissingCredentials when there is no key."""
    e = _env(env)
    if not has_credentials(e):
        raise MissingCredentials(NO_CREDENTIALS_MESSAGE)
    lazy_sdk.install()
    import httpx2
    from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

    from app.model import tls_prefetch

    context = tls_prefetch.take()

    # Pass everything explicitly so a test's env mapping wins over the process environment.
    # `timeout` bounds the non-streaming requests (side queries); a streaming request carries its
    # own, LATHE_STREAM_IDLE_TIMEOUT_MS (app/engine/stream_guard.py). Connecting keeps the SDK's
    # short limit: a plain float would let an unreachable host hold a request for `timeout`.
    # Both set (a proxy's settings `env` beside the shell's key): the SDK takes only one, and
    # Claude Code 2.1.332 authenticates with the API key (measured against a fake that accepts
    # one value: it requires the key's, ext-r5 F9), so the token is used only alone.
    api_key = e.get("ANTHROPIC_API_KEY", "").strip() or None
    return AsyncAnthropic(
        api_key=api_key,
        auth_token=None if api_key else (e.get("ANTHROPIC_AUTH_TOKEN", "").strip() or None),
        base_url=e.get("ANTHROPIC_BASE_URL", "").strip() or None,
        max_retries=max_retries,
        timeout=httpx2.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_S)),
        # The SDK's own HTTP client, given the TLS context made at launch (app/model/tls_prefetch.py).
        http_client=None if context is None else DefaultAsyncHttpxClient(verify=context),
    )


BackendKind = Literal["api", "demo", "script"]


@dataclass
class ModelBackend:
    """The client to stream from, the model id to put in requests, and where it comes from."""

    client: AsyncAnthropic
    model: str
    kind: BackendKind
    # The model was named with `[1m]`: the 1M window is asked for where the model offers it.
    extended: bool = False

    @property
    def offline(self) -> bool:
        return self.kind != "api"


def open_backend(
    *,
    model_flag: str | None = None,
    model_script: str | Path | None = None,
    settings_model: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    fallback_to_demo: bool = True,
    max_retries: int = 2,
    api_key_helper: str | None = None,
) -> ModelBackend:
    """Choose and build the backend the way CONTRACT.md says.

    `--model-script` replays a file; `--model demo` (or no credentials, when `fallback_to_demo`,
    as the TUI does) is the built-in demo; otherwise the API. ScenarioError (bad script file) and
    MissingCredentials (headless without a key) are for the caller to report (exit 2).
    """
    if model_script is not None:
        from app.model.scripted import client_for_scenario_file

        client = client_for_scenario_file(model_script, max_retries=max_retries)
        return _backend(client, model_flag, settings_model, env, "script")
    wants_demo = model_flag == DEMO_MODEL
    helper = api_key_helper.strip() if api_key_helper else ""
    if not wants_demo and helper and not has_credentials(env):
        # Claude Code's order: ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, then apiKeyHelper.
        from app.model.key_helper import ApiKeyHelper, helper_client

        e = _env(env)
        client = helper_client(
            ApiKeyHelper(helper, e, str(cwd) if cwd else None),
            e.get("ANTHROPIC_BASE_URL", "").strip() or None,
            max_retries=max_retries,
            timeout=600.0,
        )
        return _backend(client, model_flag, settings_model, env, "api")
    if wants_demo or (not has_credentials(env) and fallback_to_demo and not model_flag):
        from app.model.demo import make_demo_client

        return ModelBackend(make_demo_client(cwd or Path.cwd()), DEMO_MODEL, "demo")
    client = make_api_client(env, max_retries=max_retries)
    return _backend(client, model_flag, settings_model, env, "api")
