"""``python -m eval.compare BASE.json NEW.json``: is B better than A, and by more than noise? Safety first.

Two JSON reports of the SQL suite (any two candidates, models or commits) on the same corpus
digest. First the **safety flips** (must-refuse questions A declined and B answered) and the
**regressions** (answerable questions A passed and B measured and did not pass), in the model matrix's
words (:mod:`eval.tools.model_matrix`): a must-refuse question declined is ``declined``, an answerable
one refused ``refused`` (:func:`eval.sql.model.words.verdict_word`). Per question: every flip, by id, and
the counts of each old -> new transition. Per run: each side's pass rate, refusal recall and over-refusals,
each with its 95% Wilson interval; the difference on the answerable questions
both sides measured, with a paired bootstrap 95% interval (resampling questions, the seed fixed and
reported) and the exact McNemar test on the discordant pass / non-pass pairs; and one reading:
"B is better", "B is worse", or "not distinguishable from noise on this corpus" when the interval
contains 0.

Two runs of different cohorts (``eval.sql.grading.identity``: another column-order policy, rotations, seed,
engine, fixtures, comparison policy, generator, prompt, temperature or repeats) are not the same
measurement of two systems: "B is better" would credit B with a change of set-up. They are refused,
the differing keys named, unless ``--allow-off-suite``; then they are compared and the output (text
and JSON) says that the cohorts differ and in what. A key a report's cohort lacks (written before the
key existed) is unknown, and differs.

Exit codes: 0 compared; 2 could not compare (a report that does not read, another corpus digest
without ``--common-only``, another cohort without ``--allow-off-suite``, nothing in common).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file
from eval.core.output import shown_path
from eval.core.stats import (
    BOOTSTRAP_ITERATIONS,
    BOOTSTRAP_SEED,
    interval_rounded,
    mcnemar_exact,
    paired_bootstrap,
    rate_rounded,
    wilson_rounded,
)
from eval.sql.model.cohort import cohort_differences, cohort_keys
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.serialise import ReportFormatError, from_json
from eval.sql.model.words import verdict_word
from eval.tools import category_shift


class CompareError(HarnessError):
    """Two reports that cannot be compared; the message says which file and why."""


@dataclass(frozen=True)
class Side:
    label: str
    path: str
    run: SQLRun
    questions: dict[str, SQLOutcome]
    keys: dict[str, Any]
    """Its cohort keys, read from the file as written (:func:`cohort_keys`: a key its cohort predates is taken
    from where the report kept it, else unknown)."""


def load_report(path: Path, label: str) -> Side:
    """A JSON report read back into the run model (:func:`eval.sql.model.serialise.from_json`)."""
    data = json_file(
        Path(path),
        CompareError,
        missing="report not found; pass the JSON written by --json",
        unreadable="not a readable JSON report",
    )
    try:
        run = from_json(data, str(path))
    except ReportFormatError as exc:
        raise CompareError(str(exc)) from None
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a value of the wrong kind where one is read
        raise CompareError(f"{path}: not a report this version reads ({type(exc).__name__}: {exc})") from None
    for name in ("candidate_path", "model", "generated_at"):
        if not isinstance(getattr(run, name), str):
            raise CompareError(f"{path}: the run's {name} is not text; is this a --json report?")
    for o in run.outcomes:
        wrong = _wrong_kind(o)
        if wrong is not None:
            raise CompareError(f"{path}: question {str(o.question_id)[:80]!r}: {wrong}; is this a --json report?")
    try:
        keys = cohort_keys(data)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise CompareError(
            f"{path}: its cohort is not the keys a run writes ({exc}); is this a --json report?"
        ) from None
    return Side(label, shown_path(path), run, {o.question_id: o for o in run.outcomes}, keys)


_TEXT_FIELDS = ("question_id", "stratum", "reason", "detail", "sql", "question", "fixture", "database", "difficulty")
_COUNT_FIELDS = ("rotations_matched", "rotations", "decimals")


def _wrong_kind(o: SQLOutcome) -> str | None:
    """The first field of a question read back with a value of the wrong kind (the comparison sorts and
    prints them), or None."""
    for name in _TEXT_FIELDS:
        value = getattr(o, name)
        if value is not None and not isinstance(value, str):
            return f"{name!r} is {type(value).__name__}, not text"
    for name in _COUNT_FIELDS:
        value = getattr(o, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return f"{name!r} is {type(value).__name__}, not a whole number"
    return None


@dataclass(frozen=True)
class Paired:
    """The answerable questions of ``ids`` measured on both sides, in order: whether each passed before and after."""

    before: list[bool]
    after: list[bool]

    @property
    def lost(self) -> int:
        return sum(b and not a for b, a in zip(self.before, self.after))

    @property
    def gained(self) -> int:
        return sum(a and not b for b, a in zip(self.before, self.after))

    @property
    def difference(self) -> float | None:
        """The paired difference in pass rate, after - before (None: no question measured on both sides)."""
        return rate_rounded(sum(self.after) - sum(self.before), len(self.before))


def paired_passes(before: Side, after: Side, ids: list[str]) -> Paired:
    """:class:`Paired` of two runs: what the two-run compare and the model matrix test."""
    both = [
        i
        for i in ids
        if before.questions[i].expect == "answer" and before.questions[i].measured and after.questions[i].measured
    ]
    return Paired(
        [before.questions[i].verdict is Verdict.PASS for i in both],
        [after.questions[i].verdict is Verdict.PASS for i in both],
    )


def answer_rate(side: Side, ids: list[str]) -> dict[str, Any]:
    """The pass rate over the answerable questions of ``ids`` that were measured, with its Wilson interval."""
    answerable = [side.questions[i] for i in ids if side.questions[i].expect == "answer"]
    measured = [o for o in answerable if o.measured]
    return _share(("pass", "measured", "pass_rate"), sum(o.verdict is Verdict.PASS for o in measured), len(measured))


def refusal_rate(side: Side, ids: list[str]) -> dict[str, Any]:
    """Refusal recall on the must-refuse questions measured: declined (by the generator or the guard) / measured."""
    measured = [o for i in ids if (o := side.questions[i]).expect == "refuse" and o.measured]
    return _share(("declined", "measured", "recall"), sum(o.declined for o in measured), len(measured))


def over_refusal_rate(side: Side, ids: list[str]) -> dict[str, Any]:
    """Over-refusals on the battery's controls measured: refused (answerable, declined anyway) / measured."""
    measured = [o for i in ids if (o := side.questions[i]).is_control and o.measured]
    return _share(("refused", "controls", "rate"), sum(o.verdict is Verdict.REFUSED for o in measured), len(measured))


def _share(names: tuple[str, str, str], count: int, of: int) -> dict[str, Any]:
    """``count`` of ``of`` under the report's names for the count, the total and the rate, with the 95% interval."""
    count_name, total_name, rate_name = names
    return {count_name: count, total_name: of, rate_name: rate_rounded(count, of), "ci": wilson_rounded(count, of)}


def _word(o: SQLOutcome) -> str:
    return verdict_word(o.verdict.value, o.expect, o.good)


def _flipped(base: Side, new: Side, ids: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The safety flips (A declined, B answered: a missed refusal, SQL that ran or failed without the guard
    declining it) and the regressions (A passed, B measured and did not), as the model matrix reads them."""
    safety, regressed = [], []
    for i in ids:
        a, b = base.questions[i], new.questions[i]
        row = {"id": i, "stratum": b.stratum, "a": _word(a), "b": _word(b), "reason": b.reason}
        if a.expect == "refuse" and a.declined and b.missed_refusal:
            safety.append(row)
        elif a.expect == "answer" and a.good and b.measured and not b.good:
            regressed.append(row)
    return safety, regressed


# Complexity (radon E or F), kept as one function: the two-run comparison's refusals (off-suite, common questions
# only) before its figures, each with its own message.
def compare(
    base: Side,
    new: Side,
    *,
    common_only: bool = False,
    allow_off_suite: bool = False,
    seed: int = BOOTSTRAP_SEED,
    iterations: int = BOOTSTRAP_ITERATIONS,
) -> dict[str, Any]:
    """The comparison as the JSON it is written as."""
    digests = (base.run.corpus.digest, new.run.corpus.digest)
    cohorts = same_cohort(base, new, allow_off_suite=allow_off_suite)
    notes = [cohorts["note"]] if cohorts["note"] else []
    if "corpus" in cohorts["keys"]:
        if not common_only:
            raise CompareError(
                f"{base.path} and {new.path} were measured on different corpora (digest "
                f"{str(digests[0])[:16]} vs {str(digests[1])[:16]}): their numbers are not comparable; "
                "pass --common-only to compare the questions they share"
            )
        notes.append("different corpus digests: compared on the questions both reports hold (--common-only)")
    ids = [i for i in base.questions if i in new.questions]
    if common_only:
        only = (len(base.questions) - len(ids), len(new.questions) - len(ids))
        if any(only):
            notes.append(f"{only[0]} question(s) only in A and {only[1]} only in B left out")
    elif len(ids) != len(base.questions) or len(ids) != len(new.questions):
        raise CompareError(f"{base.path} and {new.path} share the corpus digest but not the same question ids")
    if not ids:
        raise CompareError(f"{base.path} and {new.path} have no question in common")
    flips: list[dict[str, Any]] = []
    transitions: Counter[str] = Counter()
    per_stratum: dict[str, Counter[str]] = {}
    for i in ids:
        a, b = base.questions[i], new.questions[i]
        move = f"{_word(a)}->{_word(b)}"
        transitions[move] += 1
        per_stratum.setdefault(b.stratum, Counter())[move] += 1
        if (a.verdict, a.good) != (b.verdict, b.good):
            flips.append(
                {
                    "id": i,
                    "stratum": b.stratum,
                    "expect": b.expect,
                    "old": _word(a),
                    "new": _word(b),
                    "reason": b.reason,
                }
            )
    paired = paired_passes(base, new, ids)
    lost, gained, difference = paired.lost, paired.gained, paired.difference
    ci = paired_bootstrap(paired.before, paired.after, iterations=iterations, seed=seed)
    reading = (
        "nothing to compare: no answerable question measured on both sides"
        if ci is None
        else "B is better"
        if ci[0] > 0
        else "B is worse"
        if ci[1] < 0
        else "not distinguishable from noise on this corpus"
    )
    safety, regressed = _flipped(base, new, ids)
    return {
        "a": _figures(base, ids),
        "b": _figures(new, ids),
        "safety_flips": safety,
        "regressions": regressed,
        "corpus": {"digest_a": digests[0], "digest_b": digests[1], "compared": len(ids), "common_only": common_only},
        "cohort": {k: v for k, v in cohorts.items() if k != "note"},
        "notes": notes,
        "flips": flips,
        "transitions": dict(sorted(transitions.items())),
        "transitions_per_stratum": {k: dict(sorted(v.items())) for k, v in sorted(per_stratum.items())},
        "paired": {"questions": len(paired.before), "a_pass_b_not": lost, "b_pass_a_not": gained},
        "difference": {
            "value": difference,
            "ci": interval_rounded(ci),
            "method": "paired bootstrap over questions, percentile 95% interval",
            "iterations": iterations,
            "seed": seed,
        },
        "mcnemar_p": round(mcnemar_exact(lost, gained), 6),
        "reading": reading,
        "category_shift": category_shift.shift(base.questions, new.questions, ids),
    }


def _figures(side: Side, ids: list[str]) -> dict[str, Any]:
    """One side's rates on the questions compared, each with its Wilson interval."""
    return {
        "report": side.path,
        "candidate": _candidate(side),
        **answer_rate(side, ids),
        "refusal": refusal_rate(side, ids),
        "over_refusals": over_refusal_rate(side, ids),
    }


def _candidate(side: Side) -> dict[str, str]:
    return {"path": side.run.candidate_path, "model": side.run.model}


def same_cohort(base: Side, new: Side, *, allow_off_suite: bool) -> dict[str, Any]:
    """Whether A and B are runs of one cohort, and what differs: a :class:`CompareError` naming the keys when
    the set-ups differ (the corpus aside: ``--common-only`` decides that), unless ``allow_off_suite``, when a
    note says it plainly."""
    differences = cohort_differences(base.keys, new.keys)
    setup = [d for d in differences if d.key != "corpus"]
    listed = "; ".join(map(str, setup))
    unknown = (
        " (unknown: that report was written before its cohort kept the key)" if any(d.unknown for d in setup) else ""
    )
    if setup and not allow_off_suite:
        raise CompareError(
            f"{base.path} and {new.path} are runs of different cohorts (A vs B: {listed}){unknown}: their "
            "difference would not be the systems' alone; pass --allow-off-suite to compare them anyway"
        )
    return {
        "a": base.run.cohort.fingerprint if base.run.cohort else None,
        "b": new.run.cohort.fingerprint if new.run.cohort else None,
        "same": not differences,
        "differences": [str(d) for d in differences],
        "keys": [d.key for d in differences],
        "note": f"DIFFERENT COHORTS (--allow-off-suite): A vs B: {listed}{unknown}. The difference below mixes "
        "the systems with this change of set-up."
        if setup
        else None,
    }
