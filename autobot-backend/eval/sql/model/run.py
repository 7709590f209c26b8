"""One SQL run as one typed value: what every renderer, the baseline, the record, ``eval.tools.compare_runs`` and
``eval.tools.trend`` read (the JSON report is this value serialised: :mod:`eval.sql.model.serialise`).

The figures (summary, the 2x2, strata, per-database and per-difficulty counts, the failing questions,
the wrong and error answers by diagnosis category)
are computed here from the outcomes, once; a renderer shows them and never works them out again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eval.core.classification import Classification, utc_now
from eval.sql.model.baseline_question import BaselineQuestion
from eval.sql.model.classify import classify_sql
from eval.sql.model.diagnosis import category_counts
from eval.sql.model.exact import exact_match_figures
from eval.sql.model.gate import GateResult
from eval.sql.model.lints import Lint, lint_counts
from eval.sql.model.outcome import (
    SQLOutcome,
    breakdown,
    control_strata,
    refusal_strata,
    strata,
    summary,
    two_by_two,
)
from eval.sql.model.setup import BaselineRef, Cohort, CorpusStamps, Costs, RunSetup


@dataclass(frozen=True)
class Classified:
    """A question against its baseline."""

    classification: Classification
    baseline_verdict: str | None
    """The verdict the baseline recorded; ``None`` when the question is not in it."""


@dataclass
class SQLRun:
    outcomes: list[SQLOutcome]
    candidate_path: str
    model: str
    corpus: CorpusStamps
    run: RunSetup
    baseline: BaselineRef | None = None
    """The baseline compared against, if any."""
    classes: dict[str, Classified] = field(default_factory=dict)
    """Question id -> its classification against the baseline (empty without a baseline)."""
    gate: GateResult | None = None
    """The gate's checks, whenever a baseline of this path, model and set-up exists."""
    gate_note: str | None = None
    """Why the gate was not evaluated (no baseline, another set-up, ...)."""
    gated: bool = False
    """The run enforces the gate (``--fail-on-regression``); otherwise it is informational."""
    oracle_defects: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    generated_at: str = field(default_factory=utc_now)
    cohort: Cohort | None = None
    """The run's identity: what makes two runs comparable (``eval.sql.grading.identity``)."""
    costs: Costs | None = None
    """Latency, tokens, money and efficiency (``eval.sql.grading.costs``)."""
    repeats: dict[str, Any] | None = None
    """With ``--repeats K``: pass@K, pass^K, the flaky questions, the majority pass rate's interval."""
    partial: bool = False
    """The run was interrupted: only what was answered is in it."""
    judge: dict[str, Any] | None = None
    """With ``--judge``: the model judge's scores of every answer and its agreement with the verdicts
    (``eval.turns.sql_turns``)."""
    transcripts: dict[str, Any] | None = None
    """Whether the questions carry transcripts: ``kept``, and ``why`` not (``eval.sql.grading.transcripts``)."""
    suspect_references: list[dict[str, str]] = field(default_factory=list)
    """References (or ``also:`` alternatives) of a shape that makes them likely wrong, one finding each:
    ``question_id``, ``kind``, ``detail`` (``eval.sql.oracle.suspect``). Their questions are graded as usual."""
    lints: list[Lint] = field(default_factory=list)
    """The corpus's lints (``eval.sql.model.lints``: drafts, near-duplicates, unstated orders), in corpus order;
    the oracle defects are the other lints a run counts."""

    @property
    def summary(self) -> dict[str, Any]:
        """Counts per verdict, the pass rate and refusal recall with their 95% Wilson intervals."""
        return summary(self.outcomes)

    @property
    def lint_counts(self) -> dict[str, int]:
        """Questions per kind of lint, the corpus's and the oracle defects' (empty: none); every output writes
        it in one line after the headline."""
        return lint_counts(self.lints, self.oracle_defects)

    @property
    def two_by_two(self) -> dict[str, dict[str, int]]:
        return two_by_two(self.outcomes)

    @property
    def strata(self) -> dict[str, dict[str, int]]:
        return strata(self.outcomes)

    @property
    def databases(self) -> dict[str, dict[str, int]]:
        return breakdown(self.outcomes, "database")

    @property
    def difficulties(self) -> dict[str, dict[str, int]]:
        return breakdown(self.outcomes, "difficulty")

    @property
    def exact_match(self) -> dict[str, Any] | None:
        """Spider's exact-set-match beside execution accuracy: overall, per difficulty label and per component;
        None when no answer was matched (:func:`eval.sql.model.exact.exact_match_figures`). Never in the
        pass rate."""
        return exact_match_figures(self.outcomes, list(self.difficulties))

    @property
    def answerable_strata(self) -> dict[str, dict[str, int]]:
        """Answerable questions (controls included) per stratum, sorted: ``cases`` and a count per verdict."""
        return dict(sorted(breakdown(self.outcomes, "stratum").items()))

    @property
    def refusal_strata(self) -> dict[str, dict[str, int]]:
        """Must-refuse questions per stratum: declined, answered, error, unmeasured."""
        return refusal_strata(self.outcomes)

    @property
    def control_strata(self) -> dict[str, dict[str, int]]:
        """The refusal battery's controls per stratum: cases, passes, over-refusals."""
        return control_strata(self.outcomes)

    @property
    def diagnosed(self) -> list[SQLOutcome]:
        """The wrong and error answers that carry a diagnosis (issue 25)."""
        return [o for o in self.outcomes if o.diagnosis is not None]

    @property
    def diagnosis_counts(self) -> dict[str, Any]:
        """Wrong and error answers by primary category: ``all`` (category -> count, in precedence order) and
        ``strata`` (stratum -> category -> count, sorted); empty counts when nothing is diagnosed."""
        per: dict[str, list[SQLOutcome]] = {}
        for o in self.diagnosed:
            per.setdefault(o.stratum, []).append(o)
        return {
            "all": category_counts(o.diagnosis.primary for o in self.diagnosed if o.diagnosis),
            "strata": {
                s: category_counts(o.diagnosis.primary for o in items if o.diagnosis)
                for s, items in sorted(per.items())
            },
        }

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
    def classification_counts(self) -> dict[str, int]:
        """Questions per classification against the baseline, every classification named (empty: no baseline)."""
        if self.baseline is None:
            return {}
        counts = Counter(c.classification for c in self.classes.values())
        return {c.value: counts[c] for c in Classification}

    @property
    def regressions(self) -> list[SQLOutcome]:
        return self.by_classification(Classification.REGRESSION)

    @property
    def gate_view(self) -> dict[str, Any]:
        """The gate as every output shows it: status, checks, whether enforced, why not evaluated."""
        if self.gate is None:
            return {"status": "not_evaluated", "checks": [], "detail": self.gate_note, "enforced": self.gated}
        return self.gate.to_json() | {"enforced": self.gated}

    @property
    def missed_refusals(self) -> list[str]:
        return [o.question_id for o in self.outcomes if o.missed_refusal]

    def suspects_of(self, question_id: str) -> list[dict[str, str]]:
        """The suspect-reference findings of one question (empty for most)."""
        return [s for s in self.suspect_references if s.get("question_id") == question_id]

    def classify(self, baseline_questions: Mapping[str, BaselineQuestion]) -> None:
        """Classify every outcome against a baseline's per-question records."""
        self.classes = {}
        for o in self.outcomes:
            base = baseline_questions.get(o.question_id)
            self.classes[o.question_id] = Classified(
                classify_sql(o, base), None if base is None else base.verdict.value
            )

    def classified(self, o: SQLOutcome) -> Classified | None:
        return self.classes.get(o.question_id)

    def by_classification(self, cls: Classification) -> list[SQLOutcome]:
        return [o for o in self.outcomes if (c := self.classes.get(o.question_id)) and c.classification is cls]
