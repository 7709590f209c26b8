"""The Markdown of what a run cost and how a repeated run varied (beside the verdicts, never in them)."""

from __future__ import annotations

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.run import SQLRun


def repeats_section(report: SQLRun) -> list[str]:
    r = report.repeats
    if not r:
        return []
    k = r["k"]
    out = [
        f"## Repeats ({k} asks per question)",
        "",
        md.table(
            ["majority pass rate", "95% CI (bootstrap)", f"pass@{k}", f"pass^{k}", "flaky questions"],
            [
                [
                    fig.pct(r.get("majority_pass_rate")),
                    fig.interval(r.get("majority_pass_rate_ci")),
                    fig.pct(r.get(f"pass_at_{k}")),
                    fig.pct(r.get(f"pass_hat_{k}")),
                    str(len(r["flaky"])),
                ]
            ],
        ),
        "",
    ]
    if r["flaky"]:
        out += [
            "Flaky (their verdicts differ across asks; the gate judges the majority and does not fail on "
            "them): " + ", ".join(f"**{md.escape(q)}**" for q in r["flaky"]),
            "",
        ]
    return out


def costs_section(report: SQLRun) -> list[str]:
    c = report.costs
    if not c or (c.get("model_latency_ms") is None and c.get("efficiency") is None):
        return []
    out = ["## Time and cost", ""]
    lat = c.get("model_latency_ms")
    if lat:
        out.append(
            f"Model latency over {lat['questions']} answer(s): p50 {fig.number(lat['p50'], ' ms')}, p95 "
            f"{fig.number(lat['p95'], ' ms')}, total {fig.number(round(lat['total'] / 1000, 1), ' s')}.  "
        )
    if c.get("prompt_tokens") is not None or c.get("completion_tokens") is not None:
        money = "" if c.get("cost") is None else f"; cost {c['cost']:.4f} at the configured prices"
        out.append(
            f"Tokens: {fig.number(c.get('prompt_tokens'))} in, {fig.number(c.get('completion_tokens'))} out{money}.  "
        )
    eff = c.get("efficiency")
    if eff:
        out.append(
            f"Efficiency (reference time / candidate time, {eff['n']} passing answers): median "
            f"{eff['median']}, p25 {eff['p25']}, p75 {eff['p75']} (above 1: the candidate's SQL ran faster)."
        )
    return out + [""]


def cohort_line(report: SQLRun) -> list[str]:
    if not report.cohort:
        return []
    return [f"Cohort `{md.escape(report.cohort['fingerprint'])}` (numbers compare only within one cohort)", ""]
