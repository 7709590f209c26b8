"""Repeats (``--repeats K``): the majority pass rate with its bootstrap interval, pass@K and pass^K, the flaky
questions, and each repeated question's K verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Place, Property, Section, placed


def line(run: SQLRun) -> str | None:
    """``2 asks per question over 12 questions: majority pass rate 50.0% (95% bootstrap CI 25.0-75.0%),
    pass@2 58.3%, pass^2 41.7%, 1 flaky``; None without ``--repeats``."""
    r = run.repeats
    if r is None:
        return None
    k = r.k
    return (
        f"{k} asks per question over {r.questions} questions: majority pass rate "
        f"{fig.pct(r.majority_pass_rate)} ({fig.BOOTSTRAP} {fig.interval(r.majority_pass_rate_ci)}), "
        f"pass@{k} {fig.pct(r.pass_at)}, pass^{k} {fig.pct(r.pass_hat)}, {len(r.flaky)} flaky"
    )


def verdict_rows(run: SQLRun) -> list[dict[str, Any]]:
    """Each repeated question's K verdicts, the flaky ones first."""
    if run.repeats is None:
        return []
    flaky = set(run.repeats.flaky)
    rows = [
        {"id": o.question_id, "verdict": o.verdict.value, "samples": [v.value for v in o.samples]}
        for o in run.outcomes
        if o.samples
    ]
    return sorted(rows, key=lambda r: r["id"] not in flaky)


class Repeats(Section):
    name = "repeats"
    places = placed(markdown=Place.HEADLINE)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        r = run.repeats
        if r is None:
            return []
        k = r.k
        out = [
            f"## Repeats ({k} asks per question, over {r.questions} measured answerable questions)",
            "",
            md.table(
                ["majority pass rate", fig.BOOTSTRAP, f"pass@{k}", f"pass^{k}", "flaky questions"],
                [
                    [
                        fig.pct(r.majority_pass_rate),
                        fig.interval(r.majority_pass_rate_ci),
                        fig.pct(r.pass_at),
                        fig.pct(r.pass_hat),
                        str(len(r.flaky)),
                    ]
                ],
            ),
            "",
            f"*{md.escape(fig.BOOTSTRAP_NOTE)}.*",
            "",
        ]
        out += md.named(
            "Flaky (their verdicts differ across asks; the gate judges the majority and does not fail on them): ",
            r.flaky,
        )
        return out

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        found = line(run)
        if found is None or run.repeats is None:
            return []
        return [("repeats", found), ("repeats.flaky", ", ".join(run.repeats.flaky) or "none")]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"rows": verdict_rows(run)}
