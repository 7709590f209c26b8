"""Time and cost: model latency (p50, p95, total), tokens and money, and how many asks they are over (all K of each
question with ``--repeats K``), and the efficiency of the candidate's SQL against the reference's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.sql.model.costs import Costs
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Line, Place, Property, Section, placed


def latency(costs: Costs | None) -> str | None:
    """``model latency over 24 asks (2 per question, 12 questions): p50 1.2 ms, p95 3.4 ms, total 0.1 s``."""
    lat = costs.model_latency_ms if costs else None
    if costs is None or lat is None:
        return None
    return (
        f"model latency over {lat.asks} asks ({costs.asks_per_question} per question, {lat.questions} questions): "
        f"p50 {fig.number(lat.p50, ' ms')}, p95 {fig.number(lat.p95, ' ms')}, total {fig.seconds(lat.total)}"
    )


def tokens(costs: Costs | None) -> str | None:
    """``tokens over 24 asks: 12,000 in, 600 out; cost 0.0123 at the configured prices``."""
    if costs is None or (costs.prompt_tokens is None and costs.completion_tokens is None):
        return None
    text = (
        f"tokens over {costs.tokens_asks} asks: {fig.number(costs.prompt_tokens)} in, "
        f"{fig.number(costs.completion_tokens)} out"
    )
    if costs.cost is not None:
        text += f"; cost {fig.money(costs.cost)} at the configured prices"
    return text


def efficiency(costs: Costs | None) -> str | None:
    eff = costs.efficiency if costs else None
    if eff is None:
        return None
    return (
        f"efficiency (reference time / candidate time, {eff.n} passing answers): median {fig.ratio(eff.median)}, "
        f"p25 {fig.ratio(eff.p25)}, p75 {fig.ratio(eff.p75)} (above 1: the candidate's SQL ran faster)"
    )


def lines(run: SQLRun) -> list[str]:
    """Latency, tokens and money, efficiency: what of them the run has."""
    return [line for line in (latency(run.costs), tokens(run.costs), efficiency(run.costs)) if line]


def latency_rows(run: SQLRun) -> list[tuple[str, str, str, str, str]]:
    """(what, total, p50, p95, over) of the model's time and the tokens, as the run model counted them."""
    c = run.costs
    if c is None:
        return []
    rows = []
    lat = c.model_latency_ms
    if lat:
        over = f"{lat.asks} asks, {lat.questions} questions"
        rows.append(
            ("model latency", fig.seconds(lat.total), fig.number(lat.p50, " ms"), fig.number(lat.p95, " ms"), over)
        )
    if c.prompt_tokens is not None or c.completion_tokens is not None:
        over = f"{c.tokens_asks} asks (p50 and p95: of one ask)"
        per_ask = c.tokens_per_ask
        spreads = (per_ask.prompt, per_ask.completion) if per_ask else (None, None)
        for side, total, spread in zip(("prompt", "completion"), (c.prompt_tokens, c.completion_tokens), spreads):
            p50, p95 = (fig.number(spread.p50), fig.number(spread.p95)) if spread else ("", "")
            rows.append((f"{side} tokens", fig.number(total), p50, p95, over))
    if c.cost is not None:
        prices = c.prices_per_million
        price_in, price_out = (prices.input, prices.output) if prices else (None, None)
        at = f"at {price_in} in / {price_out} out per million tokens"
        rows.append(("cost", fig.money(c.cost), "", "", at))
    return rows


def efficiency_row(run: SQLRun) -> dict[str, str] | None:
    eff = run.costs.efficiency if run.costs else None
    if eff is None:
        return None
    shown = {"min": eff.min, "p25": eff.p25, "median": eff.median, "p75": eff.p75, "max": eff.max}
    return {"n": str(eff.n)} | {k: fig.ratio(v) for k, v in shown.items()}


class TimeAndCost(Section):
    name = "costs"
    places = placed(markdown=Place.CLOSING)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        found = lines(run)
        if not found:
            return []
        return ["## Time and cost", "", *(f"{line[0].upper()}{line[1:]}.  " for line in found), ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        found = lines(run)
        return [Line.of("Time and cost", "bold"), *(Line.of("  " + line) for line in found)] if found else []

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        found = {"costs.latency": latency(run.costs), "costs.tokens": tokens(run.costs)}
        found["costs.efficiency"] = efficiency(run.costs)
        return [(name, line) for name, line in found.items() if line is not None]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"lines": lines(run), "latency_rows": latency_rows(run), "efficiency": efficiency_row(run)}
