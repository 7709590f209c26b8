"""What a run cost and how a repeated run varied (``eval.sql.grading.costs`` computes them): figures beside the
verdicts, never mixed into them. Typed values read by attribute; the report keeps its keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eval.sql.model.codec import key


def _questions(data: Mapping[str, Any]) -> Any:
    """A report from before the asks were counted apart had one ask per question."""
    return data.get("questions")


@dataclass(frozen=True)
class Latency:
    total: float
    p50: float
    p95: float
    asks: int = field(metadata=key(absent=_questions))
    questions: int


@dataclass(frozen=True)
class Distribution:
    n: int
    min: float
    p25: float
    median: float
    p75: float
    max: float


@dataclass(frozen=True)
class Prices:
    input: float
    output: float
    """Per million tokens."""


@dataclass(frozen=True)
class TokenSpread:
    """One ask's tokens across the asks that reported them (nearest-rank quantiles)."""

    p50: int
    p95: int


@dataclass(frozen=True)
class TokensPerAsk:
    prompt: TokenSpread | None
    completion: TokenSpread | None


@dataclass(frozen=True)
class Costs:
    """What a run cost: every ask's time and tokens, money where priced."""

    asks_per_question: int
    asks: int
    model_latency_ms: Latency | None
    prompt_tokens: int | None
    completion_tokens: int | None
    tokens_asks: int
    prices_per_million: Prices | None
    cost: float | None
    efficiency: Distribution | None
    """Reference time / candidate time per passing answer; not part of the pass rate."""
    efficiency_note: str
    tokens_per_ask: TokensPerAsk | None = None
    """p50 and p95 of the prompt and completion tokens of one ask (None in a report from before them)."""


def _pass_at(values: Mapping[str, Any]) -> str:
    return f"pass_at_{values['k']}"


def _pass_hat(values: Mapping[str, Any]) -> str:
    return f"pass_hat_{values['k']}"


@dataclass(frozen=True)
class Repeats:
    """With ``--repeats K``: the majority pass rate (the headline) with its bootstrap interval, pass@K (at least
    one of the K asks passed), pass^K (all K passed) and the flaky questions (their verdicts differ)."""

    k: int
    questions: int
    """The measured answerable questions the rates are over."""
    majority_pass_rate: float | None
    majority_pass_rate_ci: list[float] | None
    ci_method: str
    pass_at: float | None = field(metadata=key(_pass_at))
    """Written as ``pass_at_K``."""
    pass_hat: float | None = field(metadata=key(_pass_hat))
    """Written as ``pass_hat_K``."""
    flaky: list[str]
