"""The HTML report's whole run: every question as a card (passes collapsed), what its filters offer, and the
sections of figures beside the verdicts (time, tokens and cost; repeats; efficiency; the corpus stamps).

Every number comes from the run model and is written by :mod:`eval.core.figures`: a result's values at the
question's ``decimals`` (:func:`~eval.core.figures.at_precision`), float noise dropped from details
(:func:`~eval.core.figures.denoised`). The text stays plain: the template escapes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.model.transcript import REPLY_KEPT, Transcript
from eval.sql.model.words import verdict_word

FILTERS = (
    ("verdict", "verdict"),
    ("stratum", "stratum"),
    ("database", "database"),
    ("difficulty", "difficulty"),
    ("category", "failure category"),
)
"""(data attribute, label) of each filter the question list offers; one is shown when a question has a value."""


def category(o: SQLOutcome) -> str | None:
    """The failure category of the diagnosis (``diagnosis.primary``), for the category filter."""
    return None if o.diagnosis is None else o.diagnosis.primary.value


def _excerpt(o: SQLOutcome) -> dict[str, Any] | None:
    e = o.excerpt
    if e is None:
        return None

    def rows(side: tuple[tuple[int, tuple[str, ...]], ...]) -> list[tuple[int, list[tuple[str, str]]]]:
        """Each value at the question's precision, and as the database returned it (the cell's title)."""
        return [(n, [(fig.at_precision(v, o.decimals), fig.denoised(v)) for v in values]) for n, values in side]

    return {
        "rotation": e.rotation,
        "sides": [  # the candidate first, as in the SQL above it and in every other output
            ("candidate", e.actual_columns, rows(e.actual), e.actual_row),
            ("reference", e.expected_columns, rows(e.expected), e.expected_row),
        ],
        "column": e.column,
    }


def _cost(o: SQLOutcome) -> str | None:
    c = o.cost
    if c is None:
        return None
    parts = []
    if c.model_ms is not None:
        parts.append(f"model {fig.millis(c.model_ms)}")
    if c.prompt_tokens is not None or c.completion_tokens is not None:
        parts.append(f"tokens {fig.number(c.prompt_tokens)} in, {fig.number(c.completion_tokens)} out")
    if c.candidate_ms is not None:
        parts.append(f"SQL {fig.millis(c.candidate_ms)}")
    if c.reference_ms is not None:
        parts.append(f"reference {fig.millis(c.reference_ms)}")
    return ", ".join(parts) or None


def _transcript(t: Transcript, verdict: str | None, k: int) -> dict[str, Any]:
    tokens = None
    if t.prompt_tokens is not None or t.completion_tokens is not None:
        tokens = f"{fig.number(t.prompt_tokens)} in, {fig.number(t.completion_tokens)} out"
    return {
        "ask": k,
        "verdict": verdict,
        "latency": None if t.latency_ms is None else fig.millis(t.latency_ms),
        "tokens": tokens,
        "messages": t.messages,
        "reply": t.reply,
        "clipped": f"clipped to {REPLY_KEPT:,} of {t.reply_chars:,} characters" if t.clipped else None,
        "sql": t.sql,
        "refusal": t.refusal,
    }


def card(report: SQLRun, o: SQLOutcome) -> dict[str, Any]:
    """One question as the page shows it; ``failing`` ones open, the others collapsed."""
    c = report.classified(o)
    samples = [v.value for v in o.samples]
    asked = samples or [o.verdict.value]  # each ask's verdict, in the order of its transcript
    return {
        "id": o.question_id,
        "verdict": o.verdict.value,
        "word": verdict_word(o.verdict.value, o.expect, o.good),
        "failing": o.failing,
        "stratum": o.stratum,
        "database": o.database or "",
        "difficulty": o.difficulty or "",
        "category": category(o) or "",
        "reason": o.reason,
        "question": o.question,
        "detail": fig.denoised(o.detail),
        "sql": o.sql,
        "reference_sql": o.reference_sql,
        "shown_excerpt": _excerpt(o),
        "diagnosis": o.diagnosis,
        "suspect": "; ".join(f"{f['kind']}: {f['detail']}" for f in report.suspects_of(o.question_id)),
        "classification": None if c is None else c.classification.value,
        "samples": samples,
        "cost": _cost(o),
        "transcripts": [
            _transcript(t, asked[k] if k < len(asked) else None, k + 1) for k, t in enumerate(o.transcripts)
        ],
    }


def filters(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The filters the page offers: each with the values its questions have (a filter with none is left out)."""
    out = []
    for key, label in FILTERS:
        values = sorted({q[key] for q in cards if q[key]})
        if values:
            out.append({"key": key, "label": label, "options": values})
    return out


def latency_rows(report: SQLRun) -> list[tuple[str, str, str, str, str]]:
    """(what, total, p50, p95, over) of the model's time and the tokens, as the run model counted them."""
    c: Mapping[str, Any] = report.costs or {}
    rows = []
    lat = c.get("model_latency_ms")
    if lat:
        over = f"{lat['asks']} asks, {lat['questions']} questions"
        rows.append(
            (
                "model latency",
                fig.seconds(lat["total"]),
                fig.millis(lat["p50"]),
                fig.millis(lat["p95"]),
                over,
            )
        )
    if c.get("prompt_tokens") is not None or c.get("completion_tokens") is not None:
        over = f"{c.get('tokens_asks')} asks (p50 and p95: of one ask)"
        per_ask = c.get("tokens_per_ask") or {}
        for side in ("prompt", "completion"):
            spread = per_ask.get(side) or {}
            rows.append(
                (
                    f"{side} tokens",
                    fig.number(c.get(f"{side}_tokens")),
                    fig.number(spread.get("p50")) if spread else "",
                    fig.number(spread.get("p95")) if spread else "",
                    over,
                )
            )
    if c.get("cost") is not None:
        prices = c.get("prices_per_million") or {}
        at = f"at {prices.get('input')} in / {prices.get('output')} out per million tokens"
        rows.append(("cost", fig.money(c["cost"]), "", "", at))
    return rows


def efficiency_row(report: SQLRun) -> dict[str, str] | None:
    costs: Mapping[str, Any] = report.costs or {}
    eff = costs.get("efficiency")
    if not eff:
        return None
    return {k: str(eff["n"]) if k == "n" else fig.ratio(eff[k]) for k in ("n", "min", "p25", "median", "p75", "max")}


def repeat_rows(report: SQLRun) -> list[dict[str, Any]]:
    """Each repeated question's K verdicts, the flaky ones first."""
    if not report.repeats:
        return []
    flaky = set(report.repeats.get("flaky") or [])
    rows = [
        {"id": o.question_id, "verdict": o.verdict.value, "samples": [v.value for v in o.samples]}
        for o in report.outcomes
        if o.samples
    ]
    return sorted(rows, key=lambda r: r["id"] not in flaky)


def database_stamps(report: SQLRun) -> list[tuple[str, int, str, str]]:
    """(fixture or database, rotation, schema digest, file digest) of every database the run graded on."""
    return [
        (name or "(--db-url)", i, s["schema"][:16], (s.get("sha256") or "")[:16])
        for name, stamps in (report.run.get("databases") or {}).items()
        for i, s in enumerate(stamps, 1)
    ]


def context(report: SQLRun) -> dict[str, Any]:
    """What the whole-run part of the page shows."""
    cards = [card(report, o) for o in report.outcomes]
    return {
        "questions": cards,
        "question_filters": filters(cards),
        "latency_rows": latency_rows(report),
        "efficiency": efficiency_row(report),
        "repeat_rows": repeat_rows(report),
        "database_stamps": database_stamps(report),
        "transcripts_kept": bool((report.transcripts or {}).get("kept")),
    }
