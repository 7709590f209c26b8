"""One SQL run as one typed value: what every renderer, the baseline, the record, ``eval.tools.compare_runs`` and
``eval.tools.trend`` read (the JSON report is this value serialised: :mod:`eval.sql.model.serialise`).

The figures (summary, the 2x2, strata, per-database and per-difficulty counts, the failing questions,
the wrong and error answers by diagnosis category)
are computed here from the outcomes, once; a renderer shows them and never works them out again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from eval.core.classification import Classification, utc_now
from eval.sql.model.baseline_question import BaselineQuestion
from eval.sql.model.classify import classify_sql
from eval.sql.model.codec import key, written
from eval.sql.model.costs import Costs, Repeats
from eval.sql.model.diagnosis import category_counts
from eval.sql.model.exact import ExactMatchFigures, exact_match_figures
from eval.sql.model.figures import ControlCounts, DiagnosisCounts, RefusalCounts, Summary, TwoByTwo, VerdictCounts
from eval.sql.model.findings import OracleDefect, SuspectReference
from eval.sql.model.gate import NOT_EVALUATED, GateResult, GateView, gate_view
from eval.sql.model.judge import JudgeReport
from eval.sql.model.lints import Lint, lint_counts
from eval.sql.model.outcome import (
    Classified,
    SQLOutcome,
    breakdown,
    control_strata,
    refusal_strata,
    strata,
    summary,
    two_by_two,
)
from eval.sql.model.setup import BaselineRef, Cohort, CorpusStamps, RunSetup
from eval.sql.model.shard import IncompleteMerge, Shard
from eval.sql.model.transcript import TranscriptsNote


def _gate(run: Mapping[str, Any]) -> GateResult | None:
    return gate_view(run).result


def _gate_note(run: Mapping[str, Any]) -> str | None:
    return gate_view(run).detail


def _gated(run: Mapping[str, Any]) -> bool:
    return gate_view(run).enforced


def _unknown(_: Mapping[str, Any]) -> str:
    """A report that does not name its candidate (written before the run model)."""
    return "?"


def _undated(_: Mapping[str, Any]) -> str:
    return ""


@dataclass(kw_only=True)
class SQLRun:
    """The run; its fields in the order the JSON report writes them, each figure after the field it follows
    (:mod:`eval.sql.model.serialise`)."""

    generated_at: str = field(default_factory=utc_now, metadata=key(absent=_undated))
    partial: bool = False
    """The run was interrupted: only what was answered is in it."""
    candidate_path: str = field(metadata=key(("candidate", "path"), absent=_unknown))
    model: str = field(metadata=key(("candidate", "model"), absent=_unknown))
    cohort: Cohort | None = None
    """The run's identity: what makes two runs comparable (``eval.sql.grading.identity``)."""
    corpus: CorpusStamps = field(metadata=key(absent=lambda _: CorpusStamps()))
    run: RunSetup = field(metadata=key(absent=lambda _: RunSetup()))
    shard: Shard | None = field(default=None, metadata=key(omit="none"))
    """``--shard K/N``: this report is one share of a run, to be merged (``python -m eval.merge``); it records
    nothing. Written only then."""
    incomplete_merge: IncompleteMerge | None = field(default=None, metadata=key(omit="none"))
    """A merge told to go on without some shards (``--allow-incomplete``). Written only then: a complete merge
    is the unsharded run's report."""
    baseline: BaselineRef | None = None
    """The baseline compared against, if any."""
    outcomes: list[SQLOutcome] = field(metadata=key("questions"))
    costs: Costs | None = None
    """Latency, tokens, money and efficiency (``eval.sql.grading.costs``)."""
    repeats: Repeats | None = None
    """With ``--repeats K``: pass@K, pass^K, the flaky questions, the majority pass rate's interval."""
    oracle_defects: list[OracleDefect] = field(default_factory=list)
    """References that cannot grade their questions (those are unmeasured); the other lints a run counts."""
    warnings: list[str] = field(default_factory=list)
    judge: JudgeReport | None = None
    """With ``--judge``: the model judge's scores of every answer and its agreement with the verdicts
    (``eval.turns.sql_turns``)."""
    transcripts: TranscriptsNote | None = None
    """Whether the questions carry transcripts, and why not (``eval.sql.grading.transcripts``); None in a report
    older than them."""
    suspect_references: list[SuspectReference] = field(default_factory=list, metadata=key(omit="empty"))
    """References (or ``also:`` alternatives) of a shape that makes them likely wrong, one finding each
    (``eval.sql.oracle.suspect``). Their questions are graded as usual. Written only when there are any."""
    lints: list[Lint] = field(default_factory=list, metadata=key(omit="empty"))
    """The corpus's lints (``eval.sql.model.lints``: drafts, near-duplicates, unstated orders), in corpus order;
    the oracle defects are the other lints a run counts. Written only when there are any."""
    gate: GateResult | None = field(default=None, metadata=key(written=False, read=_gate))
    """The gate's checks, whenever a baseline of this path, model and set-up exists (written as ``gate``:
    :attr:`gate_view`)."""
    gate_note: str | None = field(default=None, metadata=key(written=False, read=_gate_note))
    """Why the gate was not evaluated (no baseline, another set-up, ...)."""
    gated: bool = field(default=False, metadata=key(written=False, read=_gated))
    """The run enforces the gate (``--fail-on-regression``); otherwise it is informational."""

    @property
    @written(after="run")
    def summary(self) -> Summary:
        """Counts per verdict, the pass rate and refusal recall with their 95% Wilson intervals."""
        return summary(self.outcomes)

    @property
    @written(after="run", omit="empty")
    def lint_counts(self) -> dict[str, int]:
        """Questions per kind of lint, the corpus's and the oracle defects' (empty: none, and not written); every
        output writes it in one line after the headline."""
        return lint_counts(self.lints, self.oracle_defects)

    @property
    @written(after="run")
    def two_by_two(self) -> TwoByTwo:
        return two_by_two(self.outcomes)

    @property
    @written(after="run")
    def strata(self) -> dict[str, dict[str, int]]:
        return strata(self.outcomes)

    @property
    @written(after="run")
    def refusal_strata(self) -> dict[str, RefusalCounts]:
        """Must-refuse questions per stratum: declined, answered, error, unmeasured."""
        return refusal_strata(self.outcomes)

    @property
    @written(after="run")
    def control_strata(self) -> dict[str, ControlCounts]:
        """The refusal battery's controls per stratum: cases, passes, over-refusals."""
        return control_strata(self.outcomes)

    @property
    @written(after="run")
    def databases(self) -> dict[str, VerdictCounts]:
        return breakdown(self.outcomes, "database")

    @property
    @written(after="run")
    def difficulties(self) -> dict[str, VerdictCounts]:
        return breakdown(self.outcomes, "difficulty")

    @property
    @written(after="run")
    def missed_refusals(self) -> list[str]:
        return [o.question_id for o in self.outcomes if o.missed_refusal]

    @property
    @written(after="run")
    def diagnosis_counts(self) -> DiagnosisCounts:
        """Wrong and error answers by primary category: over all (category -> count, in precedence order) and
        per stratum (stratum -> category -> count, sorted); empty counts when nothing is diagnosed."""
        per: dict[str, list[SQLOutcome]] = {}
        for o in self.diagnosed:
            per.setdefault(o.stratum, []).append(o)
        return DiagnosisCounts(
            overall=category_counts(o.diagnosis.primary for o in self.diagnosed if o.diagnosis),
            strata={
                s: category_counts(o.diagnosis.primary for o in items if o.diagnosis)
                for s, items in sorted(per.items())
            },
        )

    @property
    @written(after="run", name="failing")
    def failing_ids(self) -> list[str]:
        return [o.question_id for o in self.failing]

    @property
    @written(after="judge", name="gate")
    def gate_view(self) -> GateView:
        """The gate as every output shows it: status, checks, whether enforced, why not evaluated."""
        if self.gate is None:
            return GateView(NOT_EVALUATED, [], self.gate_note, self.gated)
        return GateView(self.gate.status, list(self.gate.checks), None, self.gated)

    @property
    @written(after="transcripts", omit="none")
    def exact_match(self) -> ExactMatchFigures | None:
        """Spider's exact-set-match beside execution accuracy: overall, per difficulty label and per component;
        None when no answer was matched (:func:`eval.sql.model.exact.exact_match_figures`), and then not
        written. Never in the pass rate."""
        return exact_match_figures(self.outcomes, list(self.difficulties))

    @property
    def answerable_strata(self) -> dict[str, VerdictCounts]:
        """Answerable questions (controls included) per stratum, sorted: ``cases`` and a count per verdict."""
        return dict(sorted(breakdown(self.outcomes, "stratum").items()))

    @property
    def diagnosed(self) -> list[SQLOutcome]:
        """The wrong and error answers that carry a diagnosis (issue 25)."""
        return [o for o in self.outcomes if o.diagnosis is not None]

    @property
    def failing(self) -> list[SQLOutcome]:
        """Every question that is not good (the one "failing" predicate: :attr:`SQLOutcome.failing`)."""
        return [o for o in self.outcomes if o.failing]

    @property
    def failing_measured(self) -> list[SQLOutcome]:
        """The failing questions held against the candidate (JUnit's failures): failing and measured."""
        return [o for o in self.failing if o.measured]

    @property
    def unmeasured(self) -> list[SQLOutcome]:
        """The questions the harness could not judge (failing, never held against the candidate)."""
        return [o for o in self.outcomes if not o.measured]

    @property
    def declined_by_guard(self) -> list[str]:
        """Must-refuse questions the read-only guard declined (the generator produced SQL it blocked)."""
        return [o.question_id for o in self.outcomes if o.expect == "refuse" and o.declined_by == "guard"]

    @property
    def classes(self) -> dict[str, Classified]:
        """Question id -> its classification against the baseline (empty without a baseline)."""
        return {o.question_id: o.classified for o in self.outcomes if o.classified is not None}

    @property
    def classification_counts(self) -> dict[str, int]:
        """Questions per classification against the baseline, every classification named (empty: no baseline)."""
        if self.baseline is None:
            return {}
        counts = Counter(o.classified.classification for o in self.outcomes if o.classified is not None)
        return {c.value: counts[c] for c in Classification}

    @property
    def regressions(self) -> list[SQLOutcome]:
        return self.by_classification(Classification.REGRESSION)

    def suspects_of(self, question_id: str) -> list[SuspectReference]:
        """The suspect-reference findings of one question (empty for most)."""
        return [s for s in self.suspect_references if s.question_id == question_id]

    def classify(self, baseline_questions: Mapping[str, BaselineQuestion]) -> None:
        """Classify every outcome against a baseline's per-question records."""
        classified = []
        for o in self.outcomes:
            base = baseline_questions.get(o.question_id)
            verdict = None if base is None else base.verdict.value
            classified.append(replace(o, classified=Classified(classify_sql(o, base), verdict)))
        self.outcomes = classified

    def by_classification(self, cls: Classification) -> list[SQLOutcome]:
        return [o for o in self.outcomes if o.classified is not None and o.classified.classification is cls]
