"""The SQL verdict model: one :class:`SQLOutcome` per question, and the figures a run is summed into.

Grading produces outcomes; reports, baselines, the gate and the records read them. Nothing here
renders anything or knows about baselines (regression classification is ``eval.trajectory.report``'s).

Verdicts (spec 6): an answerable question is ``pass``, ``wrong``, ``error`` or ``refused``; a
must-refuse question is ``refused`` (a correct refusal), ``answered`` (a missed refusal) or
``error``, where an ``error`` whose reason is ``guard_blocked`` counts as declined because the
system returned no number. ``unmeasured`` is not a verdict about the candidate: the harness could
not judge, and it is counted apart, never a pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from typing import Literal

from eval.core.classification import Classification
from eval.core.stats import rate_rounded, wilson_rounded
from eval.sql.model.codec import key, written
from eval.sql.model.counterexample import Search
from eval.sql.model.diagnosis import Diagnosis
from eval.sql.model.exact import ExactMatch
from eval.sql.model.excerpt import Excerpt
from eval.sql.model.figures import (
    ControlCounts,
    GridRow,
    RefusalCounts,
    Summary,
    TwoByTwo,
    VerdictCounts,
    count_field,
)
from eval.sql.model.transcript import Transcript

Expect = Literal["answer", "refuse"]

GUARD_BLOCKED = "guard_blocked"
"""The reason of an ``error`` the read-only guard caused."""
ORACLE = "oracle"
"""The reason of an ``unmeasured`` question whose reference fails the self-check (a user's corpus)."""
NO_ANSWER = "no answer recorded"
"""The reason of an ``unmeasured`` question a recorded answers file has no line for."""
UNDECIDED = "undecided"
"""The reason of an ``unmeasured`` question whose comparison gave up at a limit before deciding
(the detail names the limit); the same string as ``eval.sql.rows.UNDECIDED``."""


class Verdict(StrEnum):
    """Exactly one per graded SQL question (spec section 6)."""

    PASS = "pass"
    """SQL was produced, ran, and its rows match the reference on every rotation."""
    WRONG = "wrong"
    """SQL ran and its rows do not match; the reason says how."""
    ERROR = "error"
    """SQL was produced but did not run: database error, timeout, row cap, or the guard blocked it."""
    REFUSED = "refused"
    """The system declined: no SQL came back (reason: its stated refusal, or why none came)."""
    ANSWERED = "answered"
    """Must-refuse question only: SQL ran and returned rows, a missed refusal."""
    UNMEASURED = "unmeasured"
    """The harness could not judge (endpoint unreachable, credentials missing, broken oracle, no
    answer recorded). Counted apart; never a pass, never a regression."""


ANSWERABLE_VERDICTS = (Verdict.PASS, Verdict.WRONG, Verdict.ERROR, Verdict.REFUSED, Verdict.UNMEASURED)
"""The verdicts an answerable question can get, in report order."""
MUST_REFUSE_VERDICTS = (Verdict.REFUSED, Verdict.ANSWERED, Verdict.ERROR, Verdict.UNMEASURED)


@dataclass(frozen=True)
class Cost:
    """What one answer took: the model's time and tokens, and the SQL's time against the reference's."""

    model_ms: float | None = None
    """The generator's wall time (a model's, retries included); None when it was not asked (recorded).
    With ``--repeats K``, a question's model time and tokens are totals over its K asks."""
    prompt_tokens: int | None = None
    """From the endpoint's ``usage``; None when it does not report it."""
    completion_tokens: int | None = None
    candidate_ms: float | None = None
    """The candidate's SQL on the first rotation (execution and fetch); with repeats, the asks' mean."""
    reference_ms: float | None = None
    """The reference on the same database."""


@dataclass(frozen=True)
class Classified:
    """A question against its baseline."""

    classification: Classification
    baseline_verdict: str | None
    """The verdict the baseline recorded; ``None`` when the question is not in it."""


@dataclass(frozen=True)
class SQLOutcome:
    """One question's verdict and the evidence for it; its fields in the order the JSON report writes them
    (:mod:`eval.sql.model.codec`)."""

    question_id: str = field(metadata=key("id"))
    expect: Expect
    stratum: str
    verdict: Verdict
    _: KW_ONLY
    reason: str | None = None
    """Machine-readable: ``value``, ``row_count``, ``order``, ``column_count``, ``column_order``, ``shape``,
    ``rotation``, ``guard_blocked``, ``database``, ``timeout``, ``row_cap``, ``refused``, ``oracle``, ..."""
    detail: str = ""
    """One line a human reads."""
    sql: str | None = None
    rotations_matched: int | None = None
    rotations: int | None = None
    classified: Classified | None = field(default=None, metadata=key(inline=True))
    """Against the run's baseline (:meth:`eval.sql.model.run.SQLRun.classify`); None without one."""
    fixture: str | None = None
    database: str | None = None
    """The user's database it ran on (``database:`` questions, a benchmark's), else None."""
    difficulty: str | None = None
    """The benchmark's difficulty label, where it has one."""
    question: str = ""
    cost: Cost | None = None
    samples: tuple[Verdict, ...] = field(default=(), metadata=key(null_when_empty=True))
    """With ``--repeats K``: the K verdicts this question got (the outcome is their majority)."""
    reference_sql: str | None = None
    """The reference as it ran (in the engine's dialect); None for a must-refuse question."""
    excerpt: Excerpt | None = None
    """On ``wrong``: rows of both results around the first difference."""
    decimals: int | None = None
    """The answerable question's ``decimals``: the precision its values are shown at (None: must-refuse)."""
    transcripts: tuple[Transcript, ...] = ()
    """A model candidate's transcript of each ask, in the order of ``samples`` (empty: none kept)."""
    diagnosis: Diagnosis | None = None
    """On an answerable ``wrong`` or ``error``: why it is wrong (``eval.sql.diagnosis``, issue 25)."""
    exact: ExactMatch | None = field(default=None, metadata=key(omit="none"))
    """Spider's exact-set-match of the SQL against the reference, where it is asked for (a Spider import,
    ``--exact-match``); None otherwise, and then not written, so other reports stay as they were. A second
    figure: it never changes the verdict."""
    search: Search | None = field(default=None, metadata=key(omit="none"))
    """On a ``pass`` with ``--counterexamples``: the search for a database on which it would be wrong, and the
    one it found (:mod:`eval.sql.model.counterexample`); None when nothing was searched, and then not written."""

    @property
    def baseline_verdict(self) -> str | None:
        """The verdict the run's baseline recorded (None: no baseline, or the question is not in it)."""
        return None if self.classified is None else self.classified.baseline_verdict

    @property
    def refuted(self) -> bool:
        """A pass the counterexample search refuted: still a pass, flagged beside it."""
        return self.search is not None and self.search.refuted is not None

    @property
    def is_control(self) -> bool:
        """A must-answer control of the refusal battery (stratum ``control_*``)."""
        return self.expect == "answer" and self.stratum.startswith("control_")

    @property
    def guard_blocked(self) -> bool:
        return self.verdict is Verdict.ERROR and self.reason == GUARD_BLOCKED

    @property
    def declined(self) -> bool:
        """The system returned no number on purpose. On a must-refuse question the guard blocking
        the SQL counts (spec 6); on an answerable one only a refusal does."""
        if self.verdict is Verdict.REFUSED:
            return True
        return self.expect == "refuse" and self.guard_blocked

    @property
    @written(after="sql")
    def declined_by(self) -> str | None:
        if self.verdict is Verdict.REFUSED:
            return "generator"
        return "guard" if self.declined else None

    @property
    def measured(self) -> bool:
        return self.verdict is not Verdict.UNMEASURED

    @property
    def good(self) -> bool:
        """A pass, or a correct refusal."""
        return self.declined if self.expect == "refuse" else self.verdict is Verdict.PASS

    @property
    def failing(self) -> bool:
        """What every output lists as failing: not a pass (answerable) or not declined (must-refuse),
        unmeasured included (it is shown, though never counted against the candidate)."""
        return not self.good

    @property
    def missed_refusal(self) -> bool:
        return self.expect == "refuse" and self.measured and not self.declined


def _per_verdict(counts: Counter[Verdict]) -> dict[str, int]:
    """A count field per answerable verdict (:func:`~eval.sql.model.figures.count_field`)."""
    return {count_field(v.value): counts[v] for v in ANSWERABLE_VERDICTS}


def summary(outcomes: Sequence[SQLOutcome]) -> Summary:
    """The run's :class:`~eval.sql.model.figures.Summary`; rates exclude unmeasured questions (``measured`` and
    ``must_refuse_measured`` are their denominators)."""
    answerable = [o for o in outcomes if o.expect == "answer"]
    refuse = [o for o in outcomes if o.expect == "refuse"]
    counts = Counter(o.verdict for o in answerable)
    measured = len(answerable) - counts[Verdict.UNMEASURED]
    refuse_measured = [o for o in refuse if o.measured]
    correct = sum(o.declined for o in refuse)
    controls = [o for o in answerable if o.is_control]
    return Summary(
        answerable=len(answerable),
        **_per_verdict(counts),
        measured=measured,
        pass_rate=rate_rounded(counts[Verdict.PASS], measured),
        pass_rate_ci=wilson_rounded(counts[Verdict.PASS], measured),
        must_refuse=len(refuse),
        must_refuse_measured=len(refuse_measured),
        correct_refusals=correct,
        refusal_recall=rate_rounded(correct, len(refuse_measured)),
        refusal_recall_ci=wilson_rounded(correct, len(refuse_measured)),
        refusals_by_guard=sum(o.declined_by == "guard" for o in refuse),
        missed_refusals=sum(o.missed_refusal for o in refuse),
        must_refuse_unmeasured=len(refuse) - len(refuse_measured),
        controls=len(controls),
        over_refusals=sum(o.verdict is Verdict.REFUSED for o in controls),
        declined_answerable=counts[Verdict.REFUSED],
    )


def two_by_two(outcomes: Sequence[SQLOutcome]) -> TwoByTwo:
    """Answerable / must-refuse by returned-a-number / declined, with errors and unmeasured apart."""

    def row(items: list[SQLOutcome]) -> GridRow:
        number = sum(o.verdict in (Verdict.PASS, Verdict.WRONG, Verdict.ANSWERED) for o in items)
        declined = sum(o.declined for o in items)
        unmeasured = sum(not o.measured for o in items)
        return GridRow(number, declined, len(items) - number - declined - unmeasured, unmeasured)

    return TwoByTwo(
        row([o for o in outcomes if o.expect == "answer"]), row([o for o in outcomes if o.expect == "refuse"])
    )


DIFFICULTY_SCALES = (("easy", "medium", "hard", "extra"), ("simple", "moderate", "challenging"))
"""Spider's hardness and BIRD's difficulty, easiest first: labels all of one scale are shown in its order."""


def breakdown(
    outcomes: Sequence[SQLOutcome], by: Literal["database", "difficulty", "stratum"]
) -> dict[str, VerdictCounts]:
    """Answerable questions per database, difficulty label or stratum: ``cases`` and a count per
    answerable verdict, in order of first appearance (a benchmark's labels are not alphabetical:
    simple, moderate, challenging), difficulty labels all of one of :data:`DIFFICULTY_SCALES` in its
    order; empty when no question has one."""
    found: dict[str, Counter[Verdict]] = {}
    for o in outcomes:
        label = getattr(o, by)
        if label is not None and o.expect == "answer":
            found.setdefault(label, Counter())[o.verdict] += 1
    out = {label: VerdictCounts(cases=c.total(), **_per_verdict(c)) for label, c in found.items()}
    scale = next((s for s in DIFFICULTY_SCALES if by == "difficulty" and out and set(out) <= set(s)), None)
    return {label: out[label] for label in scale if label in out} if scale else out


def strata(outcomes: Sequence[SQLOutcome]) -> dict[str, dict[str, int]]:
    """Per stratum, counts (not rates: a stratum may be two cases wide), each verdict's key in order of first
    appearance: the report's ``strata``, written for readers of the file (the harness reads the typed breakdowns)."""
    out: dict[str, dict[str, int]] = {}
    for o in outcomes:
        s = out.setdefault(o.stratum, {"cases": 0})
        s["cases"] += 1
        s[o.verdict.value] = s.get(o.verdict.value, 0) + 1
        if o.expect == "refuse":
            s["correct_refusals"] = s.get("correct_refusals", 0) + int(o.declined)
        elif o.is_control:
            s["over_refusals"] = s.get("over_refusals", 0) + int(o.verdict is Verdict.REFUSED)
    return dict(sorted(out.items()))


def refusal_strata(outcomes: Sequence[SQLOutcome]) -> dict[str, RefusalCounts]:
    """Must-refuse questions per stratum, sorted (:class:`~eval.sql.model.figures.RefusalCounts`)."""
    found: dict[str, Counter[str]] = {}
    for o in outcomes:
        if o.expect != "refuse":
            continue
        c = found.setdefault(o.stratum, Counter())
        if o.declined:
            c["declined"] += 1
        elif o.verdict is Verdict.ANSWERED:
            c["answered"] += 1
        elif o.measured:
            c["error"] += 1
        else:
            c["unmeasured"] += 1
    return {
        name: RefusalCounts(c.total(), c["declined"], c["answered"], c["error"], c["unmeasured"])
        for name, c in sorted(found.items())
    }


def control_strata(outcomes: Sequence[SQLOutcome]) -> dict[str, ControlCounts]:
    """The refusal battery's must-answer controls per stratum, sorted: ``cases``, ``pass`` and
    ``over_refused`` (declined although answerable)."""
    found: dict[str, list[SQLOutcome]] = {}
    for o in outcomes:
        if o.is_control:
            found.setdefault(o.stratum, []).append(o)
    return {
        name: ControlCounts(
            len(items), sum(o.verdict is Verdict.PASS for o in items), sum(o.verdict is Verdict.REFUSED for o in items)
        )
        for name, items in sorted(found.items())
    }
