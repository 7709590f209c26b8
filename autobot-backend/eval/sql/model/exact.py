"""Spider's exact-set-match (EM) of one answer, and a run's EM figures: a second figure beside execution
accuracy, never part of the pass rate or any verdict.

The matching itself is :mod:`eval.sql.grading.exact_match`; this module holds only what the run model keeps
and sums (plain data, no sqlglot), so every output reads the same figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from eval.core.stats import rate_rounded, wilson_rounded
from eval.sql.model.codec import key

COMPONENTS = (
    "select",
    "select(no AGG)",
    "where",
    "where(no OP)",
    "group(no Having)",
    "group",
    "order",
    "and/or",
    "IUEN",
    "keywords",
)
"""Spider's partial-match components, named and ordered as its evaluator prints them."""

OFFICIAL, EXTENDED = "official", "extended"
MODES = (OFFICIAL, EXTENDED)
"""EM's two modes (``--exact-match MODE``): ``official`` as Spider's script counts it (a prediction its parser
cannot read is not a match, every question counts), ``extended`` the project's (sqlglot reads the SQL, only
measured answers count). Every answer gets both; the run's mode decides which one its figures lead with."""


def other_mode(mode: str) -> str:
    return EXTENDED if mode == OFFICIAL else OFFICIAL


def _other_name(values: Mapping[str, Any]) -> str:
    """The key of the other mode's result: the other mode's name (``official`` beside ``extended``)."""
    return other_mode(values["mode"])


@dataclass(frozen=True)
class ExactMatch:
    """One answer under Spider's exact-set-match rules (values ignored), in the run's mode, with the other
    mode's result beside it."""

    mode: str = field(default=EXTENDED, kw_only=True)
    """Which of :data:`MODES` ``match`` is in (a report written before the modes had the extended one alone)."""
    match: bool | None
    """All components and the FROM tables match; None: unmeasured (``note`` says why)."""
    components: dict[str, bool] = field(default_factory=dict)
    """Each of :data:`COMPONENTS` -> whether it matches; empty when unmeasured."""
    tables: bool | None = None
    """The FROM clauses name the same tables (a multiset; subqueries compared whole), which EM also needs."""
    note: str = ""
    """Why unmeasured, or why not a match without a comparison (no SQL, unreadable); empty otherwise."""
    other: bool | None = field(default=None, metadata=key((_other_name, "match")))
    """The other mode's result (:func:`other_mode`); None: unmeasured there (``other_note`` says why)."""
    other_note: str = field(default="", metadata=key((_other_name, "note")))

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"exact.mode must be one of {', '.join(MODES)}, found {self.mode!r}")

    @property
    def differs(self) -> bool:
        """The two modes score this answer differently (one of them unmeasured, or match against no match)."""
        return self.match != self.other


@dataclass(frozen=True)
class Tally:
    """EM and execution accuracy of a set of questions (all, or one difficulty label)."""

    cases: int
    measured: int
    """Answers EM could compare; the others are ``unmeasured``, never a miss."""
    matched: int
    unmeasured: int
    rate: float | None
    """matched / measured."""
    execution_rate: float | None
    """Passes / graded over the same questions, to read beside ``rate``."""


@dataclass(frozen=True)
class OtherMode:
    """The other mode's overall EM."""

    mode: str
    measured: int
    matched: int
    rate: float | None


@dataclass(frozen=True)
class ExactMatchFigures:
    """A run's EM figures: overall (in the run's ``mode``, the other mode's beside it), per difficulty label and
    per component."""

    mode: str
    overall: Tally = field(metadata=key(inline=True))
    rate_ci: list[float] | None
    other: OtherMode
    differ: int
    """Answers the two modes score differently."""
    by_difficulty: dict[str, Tally]
    components: dict[str, float | None]
    """Each of :data:`COMPONENTS` -> the share of measured answers that match it."""


class Scored(Protocol):
    """What the figures read of an outcome (:class:`eval.sql.model.outcome.SQLOutcome`, which imports this)."""

    @property
    def exact(self) -> ExactMatch | None: ...
    @property
    def difficulty(self) -> str | None: ...
    @property
    def measured(self) -> bool: ...
    @property
    def good(self) -> bool: ...


def _tally(items: Sequence[Scored]) -> Tally:
    measured = [o for o in items if o.exact is not None and o.exact.match is not None]
    matched = sum(bool(o.exact and o.exact.match) for o in measured)
    graded = [o for o in items if o.measured]
    passed = sum(o.good for o in graded)
    return Tally(
        cases=len(items),
        measured=len(measured),
        matched=matched,
        unmeasured=len(items) - len(measured),
        rate=rate_rounded(matched, len(measured)),
        execution_rate=rate_rounded(passed, len(graded)),
    )


def exact_match_figures(outcomes: Sequence[Scored], levels: Sequence[str]) -> ExactMatchFigures | None:
    """EM overall, per difficulty label (``levels``: the labels in report order) and per component, with
    execution accuracy (the pass rate) of the same questions beside it; None when no answer has EM.

    ``rate`` is matched / measured (unmeasured answers are counted apart, never as a miss);
    ``execution_rate`` is passes / graded over the same questions, so the two are read side by side.
    ``mode`` names the mode the figures are in, ``other`` the other mode's overall figure and ``differ`` how
    many answers the two modes score differently.
    """
    scored = [o for o in outcomes if o.exact is not None]
    if not scored:
        return None
    mode = next(o.exact.mode for o in scored if o.exact is not None)
    overall = _tally(scored)
    measured = [o for o in scored if o.exact is not None and o.exact.match is not None]
    others = [o.exact.other for o in scored if o.exact is not None and o.exact.other is not None]
    return ExactMatchFigures(
        mode=mode,
        overall=overall,
        rate_ci=wilson_rounded(overall.matched, overall.measured),
        other=OtherMode(other_mode(mode), len(others), sum(others), rate_rounded(sum(others), len(others))),
        differ=sum(bool(o.exact and o.exact.differs) for o in scored),
        by_difficulty={
            level: _tally(group) for level in levels if (group := [o for o in scored if o.difficulty == level])
        },
        components={
            name: rate_rounded(sum(bool(o.exact and o.exact.components.get(name)) for o in measured), len(measured))
            for name in COMPONENTS
        },
    )
