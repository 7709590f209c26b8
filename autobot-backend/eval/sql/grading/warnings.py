"""The warnings a run's outcomes call for, made in one place: the run (:mod:`eval.sql.pipeline`) and the merge of
its shards (:mod:`eval.sql.shards.merge`) both call :func:`run_warnings`, the merge over the pooled outcomes, so a
merged run says what the unsharded run says."""

from __future__ import annotations

from collections.abc import Sequence

from eval.sql.model.outcome import SQLOutcome, Verdict


def run_warnings(candidate: str, outcomes: Sequence[SQLOutcome], extra_answer_ids: Sequence[str]) -> list[str]:
    """The reference candidate measures the harness; a candidate that declined every answerable question; recorded
    answers for ids the corpus does not have."""
    warnings = []
    if candidate == "reference":
        warnings.append(
            "Reference candidate: answers with the corpus's own SQL. This is the self-check run; "
            "it measures the harness, not any NL-to-SQL system."
        )
    answerable = [o for o in outcomes if o.expect == "answer" and o.measured]
    if answerable and all(o.verdict is Verdict.REFUSED for o in answerable):
        warnings.append(
            f"The {candidate} candidate declined every answerable question: its pass rate is "
            "zero by refusal, not by wrong answers."
        )
    if extra_answer_ids:
        warnings.append(
            f"{len(extra_answer_ids)} recorded answer(s) name ids not in the corpus and were ignored: "
            + ", ".join(extra_answer_ids[:10])
            + (" ..." if len(extra_answer_ids) > 10 else "")
        )
    return warnings
