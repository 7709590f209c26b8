"""The structured query plan: what a question asks, independent of SQL syntax.

:mod:`.intent` reads a question into a :class:`Plan`; :mod:`.build` renders the plan as SQL.
Keeping the two apart means each reading can be tested without SQL and each SQL shape without
English.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import cast

from services.embedded.period_phrases import Period, Relative


@dataclass(frozen=True)
class ColRef:
    table: str
    column: str


@dataclass
class Filter:
    kind: str
    """``eq``, ``ne`` (with ``values``), ``cmp`` (``op`` and ``number``, or the column's average when
    ``number`` is None), ``null``, ``notnull``,
    ``bool`` (``values`` holds True/False), ``range`` (``lo``/``hi``), ``anyrange`` (``values`` holds
    ``(lo, hi)`` pairs, any of which), ``colcmp`` (``op`` against the column in ``values[0]``),
    ``exists`` (a related row in the table ``values[0]``, none when ``op`` is ``not``), ``relative`` or
    ``recurring`` (``values`` is the :attr:`~.dates.DateSpec.recurring` pair: a month or quarter of any year,
    a day at a period's edge)."""
    col: ColRef
    values: tuple = ()
    op: str | None = None
    number: float | None = None
    lo: dt.date | None = None
    hi: dt.date | None = None
    """Exclusive upper bound."""
    relative: Relative | None = None


@dataclass
class Measure:
    func: str
    """``count``, ``sum``, ``avg``, ``min``, ``max`` or ``metric`` (a metric from the comments)."""
    table: str
    """The table read: for a count, the entity counted; for a metric, its base table."""
    column: str | None = None
    metric: str | None = None
    distinct: bool = False
    per: str | None = None
    """Two-level aggregate: first ``func`` per row of this table, then ``outer`` over those."""
    outer: str = "avg"
    share: list[Filter] | None = None
    """A percentage: the part of the measure where these filters hold, out of 100."""
    rows: bool = False
    """Count joined rows, not distinct entities ("the member who borrowed the most books")."""
    since: str | None = None
    """A duration: ``column`` minus this date column of the same table, in days."""
    per_grain: str | None = None
    """Two-level over time: the measure per ``per_grain`` period first ("average monthly revenue")."""
    share_of_total: bool = False
    """Each group's part of the total over all groups, out of 100."""
    raw: bool = False
    """A metric's aggregate without its condition: "the value of returned items" adds up every line."""
    swap: tuple[ColRef, ColRef] | None = None
    """A metric read with one column in place of another: the metric at the catalogue price (the catalogue
    price for the price charged)."""
    discount: bool = False
    """With ``swap``: the swapped metric minus the metric itself (a discount: catalogue less charged)."""

    @property
    def column_name(self) -> str:
        """The column of a measure that reads one (every function but a count of rows and a metric)."""
        return cast(str, self.column)

    @property
    def metric_name(self) -> str:
        """The metric of a ``metric`` measure."""
        return cast(str, self.metric)


@dataclass
class Dim:
    kind: str
    """``column`` (a dimension column), ``entity`` (a table's rows, shown by their label) or ``grain``."""
    table: str
    column: str | None = None
    unit: str | None = None
    """Grain only: ``day``, ``week``, ``month``, ``quarter`` or ``year`` of the date ``column``."""
    show_key: bool = False
    """Entity only: show its key before its label ("the member id and name")."""
    labels: tuple[str, str] | None = None
    """Column only: shown as the first label where the flag is true (or the column set), else the second."""
    null_label: str | None = None
    """Column only: shown in place of NULL, so the rows without a value form a group of their own."""

    @property
    def column_name(self) -> str:
        """The column of a column grouping, or the date of a grain once its date is known."""
        return cast(str, self.column)

    @property
    def grain_unit(self) -> str:
        """The unit of a grain (every grain has one)."""
        return cast(str, self.unit)


@dataclass
class Having:
    measure: Measure
    op: str
    """``>``, ``>=``, ``<``, ``<=``, ``=``, or ``range`` (the aggregate falls in ``within``)."""
    number: float | None
    """``None``: compared with the average of the same measure over all the groups."""
    within: Filter | None = None


@dataclass
class Exists:
    table: str
    negate: bool
    filters: list[Filter] = field(default_factory=list)
    also: list[str] = field(default_factory=list)
    """Further tables joined inside the subquery ("never borrowed a *fantasy book*")."""


@dataclass
class Rank:
    desc: bool
    limit: int | None
    column: ColRef | None = None
    """Row ranking by a plain column (no aggregation); otherwise by the plan's first measure."""
    partition: int = 0
    """Rank within groups: the first ``partition`` dimensions are the groups ("for each category")."""
    offset: int = 0
    """Rows skipped before the ``limit`` ("the second highest")."""


@dataclass
class Window:
    kind: str
    """``running`` (cumulative from the first period) or ``moving`` (over the last ``n`` periods)."""
    n: int = 1
    func: str = "avg"
    show_value: bool = False
    """Each period's own value before the windowed one ("that month's sales, and the running total")."""


@dataclass
class Compare:
    unit: str
    pct: bool
    with_measure: bool = False
    periods: tuple[Period, Period] | None = None
    """Two named periods: the answer is one number, the second minus the first."""
    date: ColRef | None = None
    """The date column that places rows in periods."""
    grain: str | None = None
    """The series' period (``unit`` unless the question names another, e.g. quarters compared year on year)."""
    offset: int = 1
    """How many periods back the compared one is (4 for quarters a year earlier)."""
    rank: Rank | None = None
    """Rank the periods by their change instead of listing them in order."""
    columns: list[Filter] = field(default_factory=list)
    """Named periods shown side by side: one column of the measure per period, in this order."""
    change: bool = False
    """With ``columns``: a last column with the change from the first period to the last."""
    only_change: bool = False
    """With ``columns``: the change alone, not each period's value ("which category grew the most")."""
    previous: bool = False
    """A series that shows the compared period's value instead of the change ("... and the quarter before")."""


@dataclass
class Plan:
    subject: str | None = None
    measures: list[Measure] = field(default_factory=list)
    dims: list[Dim] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)
    having: list[Having] = field(default_factory=list)
    exists: list[Exists] = field(default_factory=list)
    rank: Rank | None = None
    compare: Compare | None = None
    window: Window | None = None
    keep_empty: bool = False
    """LEFT JOIN from the grouped entity, so entities with no related rows keep a row (count 0)."""
    projection: list[ColRef] = field(default_factory=list)
    """Columns listed, for questions that ask for rows rather than a number."""
    joins: set[str] = field(default_factory=set)
    """Further tables the question relates the rows to (an inner join restricts to related rows)."""
    via_keys: set[tuple[str, str]] = field(default_factory=set)
    """Foreign keys (table, column) the question names as the way to their table when several lead
    there ("the destination airport", "flights to Spain"): joins take them over the others."""
    show_rank: bool = False
    """Each row's rank by the first measure is a column of the answer ("and their rank"), within the groups
    of all but the last grouping when there are several ("rank X within each Y")."""
    hide_measures: bool = False
    """The measures only rank the rows: a "which X ... most Y" question shows X alone."""
