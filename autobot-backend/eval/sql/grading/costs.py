"""What a run cost, and how a repeated run varied: figures beside the verdicts, never mixed into them.

* :func:`cost_summary`: the model's latency (total, p50, p95), tokens, and money when prices are
  configured (``NL_SQL_LLM_PRICE_IN`` / ``NL_SQL_LLM_PRICE_OUT``, per million tokens), all over the
  same asks (every one of the K asks per question with ``--repeats K``), counted; and an efficiency
  figure per passing answer, the reference's execution time over the candidate's on the same
  database (BIRD's VES idea), reported as a distribution;
* :func:`repeat_summary`: with ``--repeats K``, the majority pass rate (the headline), pass@K (at
  least one of the K passed), pass^K (all K passed), the flaky questions (their verdicts differ) and a
  bootstrap 95% interval of the majority pass rate, resampling the questions (``questions``: how many).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence

from eval.core.errors import UsageError
from eval.core.stats import BOOTSTRAP_SEED, bootstrap_rate, interval_rounded, rate_rounded
from eval.sql.model.costs import Costs, Distribution, Latency, Prices, Repeats, TokensPerAsk, TokenSpread
from eval.sql.model.outcome import SQLOutcome, Verdict

PRICE_IN_ENV, PRICE_OUT_ENV = "NL_SQL_LLM_PRICE_IN", "NL_SQL_LLM_PRICE_OUT"


def prices_from_env() -> tuple[float, float] | None:
    """(input, output) price per million tokens, when both are set."""
    raw = {name: os.environ.get(name, "").strip() for name in (PRICE_IN_ENV, PRICE_OUT_ENV)}
    if not any(raw.values()):
        return None
    try:
        values = tuple(float(raw[n]) for n in (PRICE_IN_ENV, PRICE_OUT_ENV))
    except ValueError:
        raise UsageError(
            f"{PRICE_IN_ENV} and {PRICE_OUT_ENV} must both be prices per million tokens (e.g. 0.15), got {raw}"
        ) from None
    if any(v < 0 for v in values):
        raise UsageError(f"{PRICE_IN_ENV} and {PRICE_OUT_ENV} cannot be negative, got {raw}")
    return values[0], values[1]


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def distribution(values: list[float]) -> Distribution | None:
    if not values:
        return None
    return Distribution(
        n=len(values),
        min=round(min(values), 3),
        p25=round(_quantile(values, 0.25), 3),
        median=round(statistics.median(values), 3),
        p75=round(_quantile(values, 0.75), 3),
        max=round(max(values), 3),
    )


def cost_summary(asks: Sequence[SQLOutcome], prices: tuple[float, float] | None, asks_per_question: int = 1) -> Costs:
    """Latency, tokens, money and efficiency over ``asks``: every ask's graded outcome, before a repeated
    run's asks are combined into one outcome per question. Latency (total, p50, p95) and tokens count
    the same asks, all K of them with ``--repeats K``, and say how many."""
    costs = [o.cost for o in asks if o.cost is not None]
    latencies = [c.model_ms for c in costs if c.model_ms is not None]
    reported = [c for c in costs if c.prompt_tokens is not None or c.completion_tokens is not None]
    tokens_in = [c.prompt_tokens for c in reported if c.prompt_tokens is not None]
    tokens_out = [c.completion_tokens for c in reported if c.completion_tokens is not None]
    total_in = sum(tokens_in) if tokens_in else None
    total_out = sum(tokens_out) if tokens_out else None
    money = None
    if prices is not None and total_in is not None and total_out is not None:
        money = round(total_in / 1e6 * prices[0] + total_out / 1e6 * prices[1], 6)
    ratios = [
        c.reference_ms / c.candidate_ms
        for o in asks
        if o.verdict is Verdict.PASS and (c := o.cost) is not None and c.reference_ms and c.candidate_ms
    ]
    timed = [o.question_id for o in asks if o.cost is not None and o.cost.model_ms is not None]
    return Costs(
        asks_per_question=asks_per_question,
        asks=len(costs),
        model_latency_ms=None
        if not latencies
        else Latency(
            total=round(sum(latencies), 3),
            p50=round(_quantile(latencies, 0.5), 3),
            p95=round(_quantile(latencies, 0.95), 3),
            asks=len(latencies),
            questions=len(set(timed)),
        ),
        prompt_tokens=total_in,
        completion_tokens=total_out,
        tokens_asks=len(reported),
        prices_per_million=None if prices is None else Prices(prices[0], prices[1]),
        cost=money,
        efficiency=distribution(ratios),
        efficiency_note="reference execution time / candidate execution time per passing answer "
        "(above 1: the candidate's SQL ran faster); not part of the pass rate",
        tokens_per_ask=None if not reported else TokensPerAsk(_spread(tokens_in), _spread(tokens_out)),
    )


def _spread(values: list[int]) -> TokenSpread | None:
    """p50 and p95 of one ask's tokens, nearest rank: counts the endpoint reported, so whole numbers."""
    if not values:
        return None
    ordered = sorted(values)
    return TokenSpread(ordered[round(0.5 * (len(ordered) - 1))], ordered[round(0.95 * (len(ordered) - 1))])


def repeat_summary(outcomes: Sequence[SQLOutcome], repeats: int) -> Repeats | None:
    if repeats <= 1:
        return None
    measured = [o for o in outcomes if o.expect == "answer" and o.measured and o.samples]
    n = len(measured)
    any_pass = sum(Verdict.PASS in o.samples for o in measured)
    all_pass = sum(all(v is Verdict.PASS for v in o.samples) for o in measured)
    majority = [o.verdict is Verdict.PASS for o in measured]
    ci = bootstrap_rate(majority)
    flaky = sorted(o.question_id for o in outcomes if len(set(o.samples)) > 1)
    return Repeats(
        k=repeats,
        questions=n,
        majority_pass_rate=rate_rounded(sum(majority), n),
        majority_pass_rate_ci=interval_rounded(ci),
        ci_method=f"bootstrap over questions, percentile 95% interval, seed {BOOTSTRAP_SEED}",
        pass_at=rate_rounded(any_pass, n),
        pass_hat=rate_rounded(all_pass, n),
        flaky=flaky,
    )
