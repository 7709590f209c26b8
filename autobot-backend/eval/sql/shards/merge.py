"""The shards of one run joined into the run itself: checked, pooled, every figure computed again.

A merge refuses, naming the file, what would make the pooled numbers something other than one run's: a report
that is not a shard or was interrupted, shards of different splits, two copies of one attempt, a missing shard,
questions graded twice or by no shard, and any difference of set-up (the cohort: corpus, candidate, engine, seed,
rotations, repeats, column order, fixtures; the model; the run's set-up; what each shard stamps beyond the cohort:
the engine's version, the harness's code, the limits). ``allow_incomplete`` lets it go on without shards (never
with overlaps or differences), each left-out question ``unmeasured`` and the run saying so.

A retried shard is another attempt of the same index: the newest (by when it was made) replaces the older, never
adds to it. Nothing is averaged: the outcomes are pooled in corpus order and the run's figures, intervals, costs,
repeats and warnings are made from them by the same functions as an unsharded run's.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from eval.core.errors import HarnessError
from eval.sql.corpus.questions import Corpus, Question
from eval.sql.grading.costs import cost_summary, repeat_summary
from eval.sql.grading.warnings import run_warnings
from eval.sql.model import codec
from eval.sql.model.cohort import cohort_differences
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.shard import IncompleteMerge, Shard, ids_digest

SHARD_MISSING = "shard"
"""The reason of a question no merged shard graded (``--allow-incomplete``)."""


class MergeRefused(HarnessError):
    """The shards cannot be merged into one run; the message names the file and what to do."""


@dataclass(frozen=True)
class ShardReport:
    source: str
    """The file as the user named it."""
    run: SQLRun

    @property
    def stamp(self) -> Shard:
        assert self.run.shard is not None  # checked first
        return self.run.shard

    @property
    def name(self) -> str:
        return f"{self.source} (shard {self.stamp.label}, made {self.run.generated_at})"


@dataclass(frozen=True)
class Merged:
    run: SQLRun
    replaced: list[str]
    """One line per earlier attempt of a shard that a newer one replaced."""


def merge_shards(reports: Sequence[ShardReport], corpus: Corpus, *, allow_incomplete: bool = False) -> Merged:
    """The run the shards ``reports`` are parts of; ``corpus`` the corpus they graded (its digest is checked).

    Raises:
        MergeRefused: naming the file, for every case the module's docstring lists.
    """
    if not reports:
        raise MergeRefused("no shard reports given: name every shard's JSON report")
    for r in reports:
        if r.run.shard is None:
            raise MergeRefused(
                f"{r.source} is not a shard's report (it has no 'shard' key): merge the reports of a run made "
                "with --shard K/N --json"
            )
        if r.run.partial:
            raise MergeRefused(f"{r.name} was interrupted (partial): run that shard again and merge its new report")
    kept, replaced = _newest_attempts(reports)
    first = kept[0]
    for r in kept[1:]:
        _same_setup(first, r)
    _same_corpus(first, corpus)
    by_id = _pooled(kept, corpus)
    count = first.stamp.count
    missing = sorted(set(range(1, count + 1)) - {r.stamp.index for r in kept})
    if missing and not allow_incomplete:
        raise MergeRefused(
            f"shard(s) {', '.join(f'{k}/{count}' for k in missing)} missing: give every shard's JSON report "
            f"(given: {', '.join(r.name for r in kept)}), or merge with --allow-incomplete, which every output states"
        )
    ungraded = [q.id for q in corpus.questions if q.id not in by_id]
    if ungraded and not allow_incomplete:
        raise MergeRefused(
            f"incomplete: {len(ungraded)} question(s) of the corpus are in no shard ({_some(ungraded)}), though "
            f"every shard of {count} is given: the shards were shared out differently (--shard-durations) or a "
            "report was cut; run the shards again alike"
        )
    run = _merged_run(kept, corpus, by_id)
    if ungraded:
        run.incomplete_merge = IncompleteMerge(count, sorted(r.stamp.index for r in kept), missing or [], len(ungraded))
    return Merged(run, replaced)


def _newest_attempts(reports: Sequence[ShardReport]) -> tuple[list[ShardReport], list[str]]:
    """One report per shard index, the newest attempt; two reports of one attempt (same index, same time) are a
    duplicate, refused; shards of different splits (another N) refused."""
    counts = {r.stamp.count for r in reports}
    if len(counts) > 1:
        a = next(r for r in reports if r.stamp.count == min(counts))
        b = next(r for r in reports if r.stamp.count == max(counts))
        raise MergeRefused(
            f"{a.name} and {b.name} are shards of different splits (N={a.stamp.count} and N={b.stamp.count})"
        )
    attempts: dict[int, list[ShardReport]] = {}
    for r in reports:
        attempts.setdefault(r.stamp.index, []).append(r)
    kept, replaced = [], []
    for index in sorted(attempts):
        tries = sorted(attempts[index], key=lambda r: r.run.generated_at)
        for a, b in itertools.pairwise(tries):
            if a.run.generated_at == b.run.generated_at:
                raise MergeRefused(
                    f"duplicate: {a.source} and {b.source} are both shard {a.stamp.label} made at "
                    f"{a.run.generated_at}: give each shard's report once (a retried shard's newer report replaces "
                    "the older)"
                )
        kept.append(tries[-1])
        replaced += [f"{old.name} is replaced by the newer attempt {tries[-1].source}" for old in tries[:-1]]
    return kept, replaced


def _identity(r: ShardReport) -> dict[str, Any]:
    """Everything two shards of one run must have alike, as one mapping :func:`cohort_differences` compares."""
    run, stamp = r.run, r.stamp
    return {
        "candidate": run.candidate_path,
        "model": run.model,
        "provider": run.cohort.provider if run.cohort else None,
        "cohort": dict(run.cohort.keys) if run.cohort else {},
        "corpus": run.corpus.digest,
        "run": codec.to_json(run.run),
        "setup": stamp.setup,
        "assignment": stamp.assignment,
        "transcripts": codec.to_json(run.transcripts) if run.transcripts else None,
        "privileged": stamp.privileged,
        "extra_answers": stamp.extra_answers,
        "judged": run.judge is not None,
    }


def _same_setup(first: ShardReport, other: ShardReport) -> None:
    differs = cohort_differences(_identity(first), _identity(other))
    if differs:
        raise MergeRefused(
            f"{other.name} was not run like {first.name} ({first.source} vs {other.source}: "
            + "; ".join(map(str, differs))
            + "): shards merge only when every one is of the same run; run them again alike"
        )


def _same_corpus(first: ShardReport, corpus: Corpus) -> None:
    if corpus.digest != first.run.corpus.digest:
        raise MergeRefused(
            f"the corpus here (digest {corpus.digest[:16]}) is not the one {first.name} graded (digest "
            f"{first.run.corpus.digest[:16]}): merge in the checkout the shards ran in, with the same --corpus files"
        )


def _pooled(kept: Sequence[ShardReport], corpus: Corpus) -> dict[str, tuple[ShardReport, SQLOutcome]]:
    """Question id -> (its shard, its outcome); refuses a shard whose questions are not its stamp's, questions the
    corpus lacks, and a question in two shards."""
    known = {q.id for q in corpus.questions}
    by_id: dict[str, tuple[ShardReport, SQLOutcome]] = {}
    for r in kept:
        ids = [o.question_id for o in r.run.outcomes]
        if len(ids) != r.stamp.questions or ids_digest(ids) != r.stamp.ids:
            raise MergeRefused(
                f"{r.name}: its questions are not the ones its shard stamp names ({len(ids)} vs {r.stamp.questions}, "
                "or other ids): the report was edited or cut; run that shard again"
            )
        foreign = [i for i in ids if i not in known]
        if foreign:
            raise MergeRefused(f"{r.name} grades question(s) the corpus does not have: {_some(foreign)}")
        overlap = [i for i in ids if i in by_id]
        if overlap:
            other = by_id[overlap[0]][0]
            raise MergeRefused(
                f"overlap: {other.name} and {r.name} both grade {_some(overlap)}: a question is graded by one shard; "
                "run the shards again with one split"
            )
        by_id.update({o.question_id: (r, o) for o in r.run.outcomes})
    return by_id


def _merged_run(
    kept: Sequence[ShardReport], corpus: Corpus, by_id: Mapping[str, tuple[ShardReport, SQLOutcome]]
) -> SQLRun:
    first = kept[0].run
    position = {q.id: n for n, q in enumerate(corpus.questions)}
    outcomes = [by_id[q.id][1] if q.id in by_id else _not_merged(q, kept[0].stamp.count) for q in corpus.questions]
    repeats = first.run.repeats or 1
    if repeats > 1:
        asks = [
            SQLOutcome(a.question_id, "answer", "", a.verdict, cost=a.cost)
            for a in _in_order((a for r in kept for a in r.stamp.asks), position, lambda a: a.question_id)
        ]
    else:  # one ask per question: the outcomes are the asks (an unasked question has no cost, and counts in none)
        asks = outcomes
    prices = kept[0].stamp.setup.get("prices")
    stamp = kept[0].stamp
    return SQLRun(
        partial=False,
        candidate_path=first.candidate_path,
        model=first.model,
        cohort=first.cohort,
        corpus=first.corpus,
        run=replace(first.run),
        outcomes=outcomes,
        costs=cost_summary(asks, (prices[0], prices[1]) if prices else None, repeats),
        repeats=repeat_summary(outcomes, repeats),
        oracle_defects=_in_order((d for r in kept for d in r.run.oracle_defects), position, lambda d: d.question_id),
        warnings=list(stamp.privileged) + run_warnings(first.candidate_path, outcomes, stamp.extra_answers),
        transcripts=first.transcripts,
        suspect_references=_in_order(
            (s for r in kept for s in r.run.suspect_references), position, lambda s: s.question_id
        ),
        lints=_in_order((lint for r in kept for lint in r.run.lints), position, lambda lint: lint.question_id),
    )


def _in_order(items: Any, position: Mapping[str, int], question: Any) -> list[Any]:
    """``items`` in corpus order of their question, each question's own in the order its shard gave them."""
    return sorted(items, key=lambda item: position[question(item)])


def _not_merged(q: Question, count: int) -> SQLOutcome:
    return SQLOutcome(
        question_id=q.id,
        expect=q.expect,
        stratum=q.stratum,
        verdict=Verdict.UNMEASURED,
        reason=SHARD_MISSING,
        detail=f"in no shard merged (of {count}; --allow-incomplete): not graded",
        question=q.question,
        fixture=q.fixture,
        database=q.database,
        difficulty=q.difficulty,
        decimals=q.decimals if q.expect == "answer" else None,
    )


def _some(ids: Sequence[str]) -> str:
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
