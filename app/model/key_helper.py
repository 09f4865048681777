"""Claude Code's `apiKeyHelper`: a shell command whose stdout is the API key.

It runs in `/bin/sh` (from the project folder, with the environment Bash gets: no lathe
credentials) under a time limit (`LATHE_API_KEY_HELPER_TIMEOUT_MS`, default 30 s). Its value is
cached and the command runs again when the cache is older than
`CLAUDE_CODE_API_KEY_HELPER_TTL_MS` (default 5 minutes, as Claude Code) or when the API answered
401. The key lives only in the client: it never enters os.environ, so Bash, hooks and MCP
servers never see it. As in Claude Code, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY win over it.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tools.process.child_env import child_env

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_TTL_MS = 300_000
DEFAULT_TIMEOUT_MS = 30_000


class KeyHelperError(RuntimeError):
    pass


def _ms(env: Mapping[str, str], name: str, default: int) -> float:
    try:
        value = int(env.get(name, "") or default)
    except ValueError:
        value = default
    return max(value, 0) / 1000


class ApiKeyHelper:
    def __init__(self, command: str, env: Mapping[str, str], cwd: str | None = None) -> None:
        self.command = command
        self.env = dict(env)
        self.cwd = cwd
        self.ttl_s = _ms(env, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS", DEFAULT_TTL_MS)
        self.timeout_s = _ms(env, "LATHE_API_KEY_HELPER_TIMEOUT_MS", DEFAULT_TIMEOUT_MS) or 30.0
        self._key: str | None = None
        self._at = 0.0
        self._lock = threading.Lock()
        self.runs = 0  # how often the command ran (shown by tests, never used to decide)

    def invalidate(self) -> None:
        with self._lock:
            self._key = None

    def fresh(self) -> bool:
        return self._key is not None and time.monotonic() - self._at < self.ttl_s

    def get(self) -> str:
        """The cached key, or the command's output now. KeyHelperError says what went wrong."""
        with self._lock:
            if self._key is not None and time.monotonic() - self._at < self.ttl_s:
                return self._key
            self._key = self._run()
            self._at = time.monotonic()
            return self._key

    def _run(self) -> str:
        self.runs += 1
        try:
            done = subprocess.run(
                ["/bin/sh", "-c", self.command],
                cwd=self.cwd,
                env=child_env(self.env),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise KeyHelperError(
                f"apiKeyHelper `{self.command}` timed out after {self.timeout_s:g} s"
            ) from None
        except OSError as exc:
            raise KeyHelperError(f"apiKeyHelper `{self.command}` could not run: {exc}") from None
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip()[:500]
            raise KeyHelperError(
                f"apiKeyHelper `{self.command}` failed with exit code {done.returncode}"
                + (f": {err}" if err else "")
            )
        key = done.stdout.decode("utf-8", "replace").strip()
        if not key:
            raise KeyHelperError(f"apiKeyHelper `{self.command}` printed no key")
        return key


def helper_client(
    helper: ApiKeyHelper, base_url: str | None, *, max_retries: int, timeout: float
) -> AsyncAnthropic:
    """An AsyncAnthropic whose key comes from `helper` before each request (run off the event
    loop when the cache is stale) and is fetched again, once, after a 401."""
    from app.model import lazy_sdk

    lazy_sdk.install()
    from anthropic import AsyncAnthropic, AuthenticationError

    class HelperAnthropic(AsyncAnthropic):
        async def _prepare_options(self, options: Any) -> Any:
            if not helper.fresh():
                try:
                    self.api_key = await asyncio.to_thread(helper.get)
                except KeyHelperError as exc:
                    raise AuthenticationFailure(str(exc)) from None
            else:
                self.api_key = helper.get()
            return await super()._prepare_options(options)

        async def request(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return await super().request(*args, **kwargs)
            except AuthenticationError:
                helper.invalidate()  # the key expired or was revoked: ask the helper again
                return await super().request(*args, **kwargs)

    return HelperAnthropic(
        api_key="pending-api-key-helper",
        base_url=base_url,
        max_retries=max_retries,
        timeout=timeout,
    )


class AuthenticationFailure(RuntimeError):
    """The helper could not produce a key; the turn reports it like any API error."""
