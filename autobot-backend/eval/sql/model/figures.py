"""The figures a run's outcomes are summed into, as typed values: what every output reads by attribute.

They are computed in :mod:`eval.sql.model.outcome` and :class:`~eval.sql.model.run.SQLRun`, never by a renderer,
and written into the JSON report under the keys their fields name (:mod:`eval.sql.model.codec`), for readers in
other languages; a report read back computes them again from its questions.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

from eval.sql.model.codec import key

VERDICT_NAME = key("pass")
"""``pass`` is a Python keyword: the field is ``passed``, the key ``pass``."""


def count_field(verdict: str) -> str:
    """The field counting an answerable verdict in :class:`Summary` and :class:`VerdictCounts`: the verdict's
    value (``passed`` for ``pass``, a keyword). A new verdict is a field of each with that name and a default of
    0, so reports and baselines from before it read."""
    return "passed" if verdict == "pass" else verdict


@dataclass(frozen=True)
class Summary:
    """Counts per verdict, the pass rate and refusal recall with their 95% Wilson intervals. The rates leave out
    unmeasured questions: ``measured`` and ``must_refuse_measured`` are their denominators."""

    _: KW_ONLY
    answerable: int
    passed: int = field(metadata=VERDICT_NAME)
    wrong: int
    error: int
    refused: int
    """Answerable questions declined (the over-refusals among them)."""
    unmeasured: int
    measured: int
    pass_rate: float | None
    """None without a measured answerable question."""
    pass_rate_ci: list[float] | None
    must_refuse: int
    must_refuse_measured: int
    correct_refusals: int
    """Must-refuse questions declined, the guard's blocks included."""
    refusal_recall: float | None
    refusal_recall_ci: list[float] | None
    refusals_by_guard: int
    missed_refusals: int
    must_refuse_unmeasured: int = 0
    """0 in a baseline recorded before it was counted."""
    controls: int
    """The refusal battery's must-answer controls."""
    over_refusals: int
    """Controls declined."""
    declined_answerable: int

    def count(self, verdict: str) -> int:
        """Answerable questions of one verdict (``pass``, ``wrong``, ``error``, ``refused``, ``unmeasured``)."""
        return int(getattr(self, count_field(verdict)))


@dataclass(frozen=True)
class GridRow:
    """One row of the 2x2: returned a number, declined, error (no number), unmeasured."""

    returned_number: int
    declined: int
    error: int
    unmeasured: int

    @property
    def cells(self) -> tuple[int, int, int, int]:
        return self.returned_number, self.declined, self.error, self.unmeasured


@dataclass(frozen=True)
class TwoByTwo:
    """Answerable and must-refuse questions by whether the system returned a number or declined."""

    answerable: GridRow
    must_refuse: GridRow


@dataclass(frozen=True)
class VerdictCounts:
    """Answerable questions of one stratum, database or difficulty label: ``cases`` and a count per verdict."""

    cases: int = 0
    passed: int = field(default=0, metadata=VERDICT_NAME)
    wrong: int = 0
    error: int = 0
    refused: int = 0
    unmeasured: int = 0

    def count(self, verdict: str) -> int:
        """The count of one answerable verdict (``pass``, ``wrong``, ...)."""
        return int(getattr(self, count_field(verdict)))


@dataclass(frozen=True)
class RefusalCounts:
    """Must-refuse questions of one stratum; ``declined`` (the guard's blocks included), ``answered`` (missed
    refusals), ``error`` (failed without declining) and ``unmeasured`` add up to ``cases``."""

    cases: int = 0
    declined: int = 0
    answered: int = 0
    error: int = 0
    unmeasured: int = 0

    def count(self, column: str) -> int:
        return int(getattr(self, column))


@dataclass(frozen=True)
class ControlCounts:
    """The refusal battery's must-answer controls of one stratum: ``over_refused`` were declined."""

    cases: int = 0
    passed: int = field(default=0, metadata=VERDICT_NAME)
    over_refused: int = 0

    def count(self, column: str) -> int:
        return self.passed if column == "pass" else int(getattr(self, column))


@dataclass(frozen=True)
class DiagnosisCounts:
    """Wrong and error answers by primary category: over all (in precedence order) and per stratum (sorted)."""

    overall: dict[str, int] = field(metadata=key("all"))
    strata: dict[str, dict[str, int]]
