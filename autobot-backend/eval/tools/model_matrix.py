"""``python -m eval.compare A.json B.json C.json ...``: three or more runs of one cohort but the model, side by
side. Choosing among four models is one command, not six pairwise comparisons and a spreadsheet.

What it gives: every question's verdict under every run (a question-by-model matrix); each run's pass rate
and refusal recall with their 95% Wilson intervals; for every pair of runs the paired difference in pass
rate on the answerable questions both measured, with the exact McNemar test (the two-run compare's paired
test) and Holm's adjusted p-value over the family of pairs (:func:`eval.core.stats.holm`): with six pairs,
six tests at 5% would call at least one difference real far more often than one time in twenty.

The first report is the reference, as A is in the two-run compare: a **safety flip** is a must-refuse
question A declined that another run answered; a **regression** an answerable question A passed that
another run measured and did not. They come first, then the other questions where runs disagree, then the
rest. Runs must be of one cohort but the model (refused with the differing keys named, unless
``--allow-off-suite``) and of one corpus (unless ``--common-only``), as in the two-run compare.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any

from eval.core.stats import holm, mcnemar_exact
from eval.sql.model.cohort import cohort_differences
from eval.tools.compare_runs import CompareError, Side, answer_rate, over_refusal_rate, paired_passes, refusal_rate

ALPHA = 0.05
"""The family-wise error rate the pairwise readings hold: the chance that any pair is called different when
no pair is."""
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_RUNS = len(LABELS)
"""At most 26 runs, one letter each (325 pairs): a matrix wider than that is not read by a person."""


def _cohorts(sides: list[Side], *, allow_off_suite: bool) -> dict[str, Any]:
    """Each run's cohort against A's: a :class:`CompareError` naming every differing file and key (the corpus
    aside: ``--common-only`` decides that), unless ``allow_off_suite``, when a note says it plainly."""
    first = sides[0]
    per_run: dict[str, list[str]] = {}
    keys: set[str] = set()
    setup: list[str] = []
    unknown = False
    for side in sides[1:]:
        differences = cohort_differences(first.keys, side.keys)
        per_run[side.label] = [str(d) for d in differences]
        keys.update(d.key for d in differences)
        off = [d for d in differences if d.key != "corpus"]
        unknown = unknown or any(d.unknown for d in off)
        if off:
            setup.append(f"{side.path} (A vs {side.label}: {'; '.join(map(str, off))})")
    why = " (unknown: a report written before its cohort kept the key)" if unknown else ""
    if setup and not allow_off_suite:
        raise CompareError(
            f"runs of different cohorts: {first.path} is A, and {', '.join(setup)}{why}: a difference between "
            "them would not be the models' alone; pass --allow-off-suite to compare them anyway"
        )
    return {
        "fingerprints": {s.label: s.run.cohort.fingerprint if s.run.cohort else None for s in sides},
        "same": not keys,
        "differences": per_run,
        "keys": sorted(keys),
        "note": f"DIFFERENT COHORTS (--allow-off-suite): {', '.join(setup)}{why}. The differences below mix the "
        "models with these changes of set-up."
        if setup
        else None,
    }


def _question_ids(sides: list[Side], *, common_only: bool, notes: list[str], corpus_differs: bool) -> list[str]:
    if corpus_differs and not common_only:
        digests = ", ".join(f"{s.path} {s.run.corpus.digest[:16]}" for s in sides)
        raise CompareError(
            f"the runs were measured on different corpora (digests: {digests}): their numbers are not comparable; "
            "pass --common-only to compare the questions they all share"
        )
    ids = [i for i in sides[0].questions if all(i in s.questions for s in sides[1:])]
    if common_only:
        left = len(set().union(*(s.questions for s in sides))) - len(ids)
        if left:
            notes.append(f"{left} question(s) not in every report left out (--common-only)")
    elif any(len(s.questions) != len(ids) for s in sides):
        odd = next(s for s in sides if len(s.questions) != len(ids) or set(s.questions) != set(ids))
        raise CompareError(f"{sides[0].path} and {odd.path} share the corpus digest but not the same question ids")
    if not ids:
        raise CompareError(f"{', '.join(s.path for s in sides)} have no question in common")
    return ids


def _row(sides: list[Side], qid: str) -> dict[str, Any]:
    """One question across the runs, with what A's verdict flipped to: a safety flip or a regression."""
    outcomes = [s.questions[qid] for s in sides]
    a = outcomes[0]
    safety = [
        s.label for s, o in zip(sides[1:], outcomes[1:]) if a.expect == "refuse" and a.declined and o.missed_refusal
    ]
    regressed = [
        s.label
        for s, o in zip(sides[1:], outcomes[1:])
        if a.expect == "answer" and a.good and o.measured and not o.good
    ]
    disagree = len({(o.verdict, o.good) for o in outcomes}) > 1
    return {
        "id": qid,
        "stratum": a.stratum,
        "expect": a.expect,
        "flag": "safety_flip" if safety else "regression" if regressed else "disagree" if disagree else None,
        "flipped": safety or regressed,
        "cells": [
            {"run": s.label, "verdict": o.verdict.value, "good": o.good, "reason": o.reason}
            for s, o in zip(sides, outcomes)
        ],
    }


_ORDER = {"safety_flip": 0, "regression": 1, "disagree": 2, None: 3}


def _pairs(sides: list[Side], ids: list[str]) -> list[dict[str, Any]]:
    """Every pair (X, Y), X before Y: the paired difference Y - X on the answerable questions both measured,
    the exact McNemar p-value, and Holm's over the pairs that have a question to test (adjusted and read
    unrounded; the JSON keeps six places)."""
    pairs: list[dict[str, Any]] = []
    raw: list[float] = []
    for x, y in combinations(sides, 2):
        paired = paired_passes(x, y, ids)
        lost, gained = paired.lost, paired.gained
        raw.append(mcnemar_exact(lost, gained))
        pairs.append(
            {
                "x": x.label,
                "y": y.label,
                "questions": len(paired.before),
                "x_pass_y_not": lost,
                "y_pass_x_not": gained,
                "difference": paired.difference,
                "mcnemar_p": round(raw[-1], 6),
                "holm_p": None,
            }
        )
    tested = [k for k, p in enumerate(pairs) if p["questions"]]
    adjusted = dict(zip(tested, holm([raw[k] for k in tested])))
    for k, p in enumerate(pairs):
        if k in adjusted:
            p["holm_p"] = round(adjusted[k], 6)
        p["reading"] = _reading(p, adjusted.get(k))
    return pairs


def _reading(pair: dict[str, Any], holm_p: float | None) -> str:
    x, y = pair["x"], pair["y"]
    if holm_p is None:
        return "nothing to compare: no answerable question measured by both"
    if holm_p >= ALPHA:
        return "not distinguishable from noise on this corpus"
    return f"{y} is better than {x}" if pair["y_pass_x_not"] > pair["x_pass_y_not"] else f"{y} is worse than {x}"


def matrix(sides: list[Side], *, common_only: bool = False, allow_off_suite: bool = False) -> dict[str, Any]:
    """Two or more runs as the JSON the matrix is written as (``kind: "matrix"``); the command line gives it three
    or more, two to :func:`eval.tools.compare_runs.compare`."""
    if not 2 <= len(sides) <= MAX_RUNS:
        raise CompareError(f"a model matrix takes 2 to {MAX_RUNS} reports, got {len(sides)}")
    sides = [replace(s, label=LABELS[k]) for k, s in enumerate(sides)]
    cohorts = _cohorts(sides, allow_off_suite=allow_off_suite)
    note = cohorts.pop("note")
    notes = [note] if note else []
    corpus_differs = "corpus" in cohorts["keys"]
    if corpus_differs and common_only:
        notes.append("different corpus digests: compared on the questions every report holds (--common-only)")
    ids = _question_ids(sides, common_only=common_only, notes=notes, corpus_differs=corpus_differs)
    rows = sorted((_row(sides, i) for i in ids), key=lambda r: _ORDER[r["flag"]])
    pairs = _pairs(sides, ids)
    return {
        "kind": "matrix",
        "runs": [
            {
                "label": s.label,
                "report": s.path,
                "candidate": {"path": s.run.candidate_path, "model": s.run.model},
                **answer_rate(s, ids),
                "refusal": refusal_rate(s, ids),
                "over_refusals": over_refusal_rate(s, ids),
            }
            for s in sides
        ],
        "corpus": {
            "digests": {s.label: s.run.corpus.digest for s in sides},
            "compared": len(ids),
            "common_only": common_only,
        },
        "cohort": cohorts,
        "notes": notes,
        "safety_flips": [r["id"] for r in rows if r["flag"] == "safety_flip"],
        "regressions": [r["id"] for r in rows if r["flag"] == "regression"],
        "questions": rows,
        "pairs": pairs,
        "correction": {
            "test": "exact McNemar on the discordant pass / non-pass pairs of each pair of runs",
            "method": "Holm-Bonferroni",
            "alpha": ALPHA,
            "family": sum(p["holm_p"] is not None for p in pairs),
        },
    }
