"""Token usage, cache hits and cost, accumulated per model.

Prices are US dollars per million tokens (Anthropic's published list prices; cache writes are the
5-minute rate, 1.25x input; cache reads 0.1x input). A model missing from the table costs 0 and is
reported as unpriced rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float


def _price(inp: float, out: float) -> Price:
    return Price(inp, out, inp * 1.25, inp * 0.1)


# Longest prefix wins, so "claude-opus-4-5" is found before "claude-opus-4".
PRICES: dict[str, Price] = {
    "claude-opus-4-6": _price(5, 25),
    "claude-opus-4-5": _price(5, 25),
    "claude-opus-4-1": _price(15, 75),
    "claude-opus-4": _price(15, 75),
    "claude-sonnet-4-6": _price(3, 15),
    "claude-sonnet-4-5": _price(3, 15),
    "claude-sonnet-4": _price(3, 15),
    "claude-3-7-sonnet": _price(3, 15),
    "claude-3-5-sonnet": _price(3, 15),
    "claude-haiku-4-5": _price(1, 5),
    "claude-3-5-haiku": _price(0.8, 4),
    "claude-3-haiku": _price(0.25, 1.25),
    "claude-3-opus": _price(15, 75),
}
_DATE_SUFFIX = re.compile(r"-\d{8}$|-latest$")


def price_for(model: str) -> Price | None:
    name = _DATE_SUFFIX.sub("", model.strip().lower())
    name = name.split("/")[-1]  # e.g. "anthropic/claude-..." from a gateway
    best = max((p for p in PRICES if name.startswith(p)), key=len, default=None)
    return PRICES[best] if best else None


def usage_fields(usage: Any) -> dict[str, int]:
    """The four counters from an SDK Usage object or a dict; missing or null ones are 0."""
    out: dict[str, int] = {}
    for key in USAGE_FIELDS:
        value = usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)
        out[key] = (
            int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
        )
    return out


@dataclass
class ModelUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    requests: int = 0
    cost_usd: float = 0.0
    priced: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }


def cost_of(model: str, counts: Mapping[str, int]) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return (
        counts.get("input_tokens", 0) * price.input
        + counts.get("output_tokens", 0) * price.output
        + counts.get("cache_creation_input_tokens", 0) * price.cache_write
        + counts.get("cache_read_input_tokens", 0) * price.cache_read
    ) / 1_000_000


@dataclass
class UsageTracker:
    by_model: dict[str, ModelUsage] = field(default_factory=dict)
    # The newest response's counters (the context accounting reads the prompt's size from it).
    last: dict[str, int] = field(default_factory=dict)

    def add(self, model: str, usage: Any) -> float:
        """Count one response's usage; returns its cost (0 for an unpriced model)."""
        counts = usage_fields(usage)
        self.last = counts
        entry = self.by_model.setdefault(model, ModelUsage())
        for key, value in counts.items():
            setattr(entry, key, getattr(entry, key) + value)
        entry.requests += 1
        cost = cost_of(model, counts)
        if cost is None:
            entry.priced = False
            return 0.0
        entry.cost_usd += cost
        return cost

    @property
    def total_cost_usd(self) -> float:
        return sum(m.cost_usd for m in self.by_model.values())

    @property
    def unpriced_models(self) -> list[str]:
        return sorted(name for name, m in self.by_model.items() if not m.priced)

    def totals(self) -> dict[str, int]:
        """Summed counters in the Messages API's usage shape (headless `result.usage`)."""
        out = dict.fromkeys(USAGE_FIELDS, 0)
        for m in self.by_model.values():
            for key, value in m.as_dict().items():
                out[key] += value
        return out

    def cache_hit_ratio(self) -> float:
        """Share of prompt tokens read from cache (0 when nothing was sent)."""
        t = self.totals()
        prompt = t["input_tokens"] + t["cache_read_input_tokens"] + t["cache_creation_input_tokens"]
        return t["cache_read_input_tokens"] / prompt if prompt else 0.0

    def summary(self) -> str:
        lines = []
        for name, m in sorted(self.by_model.items()):
            cost = f"${m.cost_usd:.4f}" if m.priced else "cost unknown (model not in price table)"
            lines.append(
                f"{name}: {m.input_tokens} in, {m.output_tokens} out, "
                f"{m.cache_read_input_tokens} cache read, "
                f"{m.cache_creation_input_tokens} cache write, {cost}"
            )
        lines.append(f"total: ${self.total_cost_usd:.4f}")
        return "\n".join(lines)
