"""Spend accounting: ``Rates``, the cost of one request, and usage totals (``UsageTotal``, the run's
cumulative ``RunUsage``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Protocol

from jupyter_agent.messages import Usage
from jupyter_agent.model import Model

_PER_MILLION = 1_000_000
# Providers bill cache reads at about a tenth of fresh input and cache writes at a quarter more
# (Anthropic's published multipliers; OpenAI's reads are cheaper still, writes free).
CACHE_READ_FACTOR = 0.1
CACHE_WRITE_FACTOR = 1.25

RATES_INVALID = "Rates must be non-negative numbers"


def _valid_rate(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


@dataclass(frozen=True)
class Rates:
    """USD per million tokens. Unset cache prices default to 0.1x / 1.25x the input price."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def __post_init__(self) -> None:
        values = [self.input, self.output] + [v for v in (self.cache_read, self.cache_write) if v is not None]
        if not all(_valid_rate(value) for value in values):
            raise ValueError(RATES_INVALID)

    def cost(self, usage: Usage) -> float:
        cache_read = self.input * CACHE_READ_FACTOR if self.cache_read is None else self.cache_read
        cache_write = self.input * CACHE_WRITE_FACTOR if self.cache_write is None else self.cache_write
        return (
            usage.input * self.input
            + usage.output * self.output
            + usage.cache_read * cache_read
            + usage.cache_write * cache_write
        ) / _PER_MILLION

    @classmethod
    def from_model(cls, model: Model) -> "Rates":
        # A price map that leaves cache prices at 0 does not know them; 0 would make caching free.
        prices = model.cost
        return cls(
            input=prices.input,
            output=prices.output,
            cache_read=prices.cache_read or None,
            cache_write=prices.cache_write or None,
        )


def request_cost(usage: Usage, rates: Rates | None, model: Model) -> float:
    """USD for one request: the caller's rates, else the reported cost, else the model's prices."""
    if rates is not None:
        return rates.cost(usage)
    if usage.cost.total > 0:
        return usage.cost.total
    return Rates.from_model(model).cost(usage)


def request_input_tokens(usage: Usage) -> int:
    """Everything the request sent, cached prefix included (what the compaction trigger reads)."""
    return usage.input + usage.cache_read + usage.cache_write


class TokenCounts(Protocol):
    """What a usage total adds up: another total, or a session's usage record (same field names)."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cache_read_tokens(self) -> int: ...
    @property
    def cache_write_tokens(self) -> int: ...
    @property
    def spend_usd(self) -> float: ...


@dataclass
class UsageTotal:
    """Tokens and spend summed over requests: the one total a run (``RunUsage``) and a session
    branch (``session.SessionUsage``) keep."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    spend_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def add(self, other: TokenCounts) -> None:
        """Adds ``other``'s tokens and spend (a sub-agent's run, a session's usage record)."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.spend_usd += other.spend_usd


@dataclass
class RunUsage(UsageTotal):
    """A run's total; ``add`` (a sub-agent's) leaves the latest request size this run's."""

    last_request_input_tokens: int = 0

    def charge(self, usage: Usage, cost: float) -> None:
        self.input_tokens += usage.input
        self.output_tokens += usage.output
        self.cache_read_tokens += usage.cache_read
        self.cache_write_tokens += usage.cache_write
        self.spend_usd += cost

    def since(self, earlier: UsageTotal) -> "RunUsage":
        """What was added after ``earlier`` (this total as it was then)."""
        return RunUsage(
            input_tokens=self.input_tokens - earlier.input_tokens,
            output_tokens=self.output_tokens - earlier.output_tokens,
            cache_read_tokens=self.cache_read_tokens - earlier.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens - earlier.cache_write_tokens,
            spend_usd=self.spend_usd - earlier.spend_usd,
        )

    def copy(self) -> "RunUsage":
        return replace(self)
