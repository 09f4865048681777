"""Context accounting: how big the model's window is, how much of it the conversation uses.

The API's usage of the last response is the truth (its input, cache read and cache creation tokens
are the whole prompt; its output tokens are the assistant message now in the conversation). What
was appended since (tool results, the next prompt) is estimated at about four characters a token,
so the figure is right before the request that would overflow is sent, not after it fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.config.models import Settings

DEFAULT_WINDOW = 200_000
EXTENDED_WINDOW = 1_000_000
EXTENDED_BETA = "context-1m-2025-08-07"
# Models that offer the 1M-token window behind the beta (Anthropic's documentation).
_EXTENDED_MODELS = re.compile(r"claude-(sonnet-4(-5|-6)?|opus-4-6)(\b|-|$)")
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class ContextConfig:
    """The `[context]` settings, with lathe's defaults filled in."""

    window: int | None = None
    extended_window: bool = False
    auto_compact: bool = True
    auto_compact_threshold: float = 0.9
    clear_tool_results: bool = True
    tool_results_budget: int = 40_000
    reread_files_budget: int = 30_000
    # The model was named with Claude Code's `[1m]` suffix: the 1M window is asked for (on a
    # model that offers it) as if `extended_window` were set.
    extended_named: bool = False

    @classmethod
    def from_settings(
        cls, settings: Settings | None, *, extended_named: bool = False
    ) -> ContextConfig:
        given = settings.context.model_dump(exclude_none=True) if settings is not None else {}
        return cls(**given, extended_named=extended_named)

    def opens_extended(self, model: str) -> bool:
        """Whether requests ask for the 1M window: wanted (set or named `[1m]`) and offered."""
        wanted = self.extended_window or self.extended_named
        return self.window is None and wanted and supports_extended(model)


def supports_extended(model: str) -> bool:
    name = model.strip().lower().split("/")[-1]
    return bool(_EXTENDED_MODELS.match(name))


def context_window(model: str, config: ContextConfig) -> int:
    """The window in tokens: the setting when given; 1M where asked for and offered; else 200k
    (every current Claude model; other models behind a gateway are assumed alike)."""
    if config.window is not None:
        return config.window
    if config.opens_extended(model):
        return EXTENDED_WINDOW
    return DEFAULT_WINDOW


def beta_headers(model: str, config: ContextConfig) -> dict[str, str]:
    """The request header that opens the 1M window, when it is wanted and offered."""
    if config.opens_extended(model):
        return {"anthropic-beta": EXTENDED_BETA}
    return {}


def compact_threshold(window: int, max_tokens: int, config: ContextConfig) -> int:
    """Tokens in use at which the next request triggers compaction: a share of what is left of
    the window once the response's own output tokens are reserved."""
    return int(max(window - max_tokens, window // 2) * config.auto_compact_threshold)


def estimate_tokens(value: Any) -> int:
    """About four characters a token of the JSON the request carries (never 0 for content)."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value) // CHARS_PER_TOKEN + 1
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(raw) // CHARS_PER_TOKEN + 1


def prompt_tokens(usage: Mapping[str, Any]) -> int:
    """The whole prompt of a response: uncached input plus cache reads plus cache writes."""
    return sum(
        int(usage.get(k) or 0)
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )


class ContextState:
    """Tokens in use: the last API count plus estimates for what came after it."""

    def __init__(self) -> None:
        # (prompt + output tokens of the last response, number of messages it covered)
        self._counted: tuple[int, int] | None = None
        self.compactions = 0
        self.cleared_results = 0
        # The window an overflow error reported, when smaller than the one assumed.
        self.server_window: int | None = None
        # The system prompt's and tool definitions' estimate, keyed by what it was made of.
        self.fixed_tokens: tuple[tuple[int, tuple[str, ...]], int] | None = None

    def record_usage(self, usage: Mapping[str, Any], messages: int) -> None:
        """A response arrived: its prompt and its output are in the conversation of `messages`
        messages (the assistant message included)."""
        total = prompt_tokens(usage) + int(usage.get("output_tokens") or 0)
        if total > 0:
            self._counted = (total, messages)

    def forget_count(self) -> None:
        """The conversation was rewritten (compaction, /clear): estimate it afresh."""
        self._counted = None

    def adjust(self, delta: int) -> None:
        """Older messages changed by `delta` estimated tokens (tool results cleared)."""
        if self._counted is not None:
            total, n = self._counted
            self._counted = (max(0, total + delta), n)

    def tokens_in_use(self, messages: Sequence[Mapping[str, Any]], fixed: int) -> int:
        """`fixed` is the estimate of the system prompt and the tools (counted by the API once a
        response came back, so only used before the first one)."""
        if self._counted is None or self._counted[1] > len(messages):
            return fixed + estimate_tokens(list(messages))
        total, n = self._counted
        added = list(messages[n:])
        return total + (estimate_tokens(added) if added else 0)


@dataclass(frozen=True)
class Breakdown:
    """What `/context` shows: estimated tokens by part, and the API's figure for the whole."""

    model: str
    window: int
    used: int
    compact_at: int | None
    system: int
    memory: int
    tools: int
    messages: int
    tool_results: int
    compactions: int
    cleared_results: int

    def lines(self) -> list[str]:
        def pct(n: int) -> str:
            return f"{n / self.window:6.1%}" if self.window else "   -"

        left = max(0, self.window - self.used)
        rows = [
            ("System prompt", self.system),
            ("Memory files", self.memory),
            ("Tools", self.tools),
            ("Messages", self.messages),
            ("Tool results", self.tool_results),
        ]
        out = [
            f"Context: {_k(self.used)} of {_k(self.window)} tokens used "
            f"({self.used / self.window:.0%}), {_k(left)} left · {self.model}"
        ]
        out += [f"  {name:<14} {_k(n):>7}  {pct(n)}" for name, n in rows]
        if self.compact_at is not None:
            out.append(f"Auto-compact at {_k(self.compact_at)} tokens")
        else:
            out.append("Auto-compact is off")
        if self.compactions or self.cleared_results:
            out.append(
                f"This session: {self.compactions} compaction(s), "
                f"{self.cleared_results} old tool result(s) cleared"
            )
        return out


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def split_system(system: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(system prompt, memory files) estimated tokens; the memory block starts with the
    preamble of app/memory/files.py."""
    from app.memory.files import MEMORY_PREAMBLE

    memory = sum(
        estimate_tokens(b.get("text", ""))
        for b in system
        if str(b.get("text", "")).startswith(MEMORY_PREAMBLE)
    )
    total = sum(estimate_tokens(b.get("text", "")) for b in system)
    return total - memory, memory


def split_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(messages, tool results) estimated tokens."""
    results = 0
    total = 0
    for message in messages:
        content = message.get("content")
        total += estimate_tokens(content)
        if isinstance(content, list):
            results += sum(
                estimate_tokens(b)
                for b in content
                if isinstance(b, Mapping) and b.get("type") == "tool_result"
            )
    return total - results, results
