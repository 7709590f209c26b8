"""The comparison policy (spec section 5): is the candidate's result the reference's answer?

One entry point, ``compare_results(expected_rows, actual_rows, *, shape, ordered, decimals, column_order)``,
returns a ``Comparison``: ``match``, a machine-readable ``reason`` (``Mismatch``) and a one-line
``detail`` naming the first differing row and column (1-based).

The policy, and the step that decides each row of it:

==================  ===========================================================  ==============
Rule                Behaviour                                                    Step
==================  ===========================================================  ==============
Column names        Ignored (never passed in); columns match by position.       --
Column count        Differs: ``column_count``, and ``projection_superset`` says  compare_results
                    whether the reference's columns appear in the candidate's
                    in order. With no rows on a side, pass ``*_ncols``.
Column order        By position: the reference's columns in another order are    _columns
                    ``column_order`` (still wrong), naming the permutation.
                    ``column_order="any"`` accepts it (the Spider convention).
                    The search is complete; past its limit it is ``undecided``.
Scalar              ``shape="scalar"``: the candidate has one column (else       compare_results
                    ``column_count``) and one row (else ``shape``).
Row order           A multiset (duplicates count) unless ``ordered``; then the   compare_results
                    same rows in another order is ``order``.
Row count           Differs: ``row_count``.                                      compare_results
NULL                Matches only NULL: not 0, '' or 'NULL'.                      null
Booleans            Match only booleans: True is never 1 (nor 1.0).              boolean
Numbers             int, float and Decimal by exact value (10 == 10.0 ==         number
                    Decimal('10.00')); NaN matches only NaN, inf only the same
                    sign of inf. Then, at ``decimals``, two finite numbers are   _tolerance
                    equal when they differ by at most half a unit in that
                    place (33.33 = 33.3333; 34.765 = 34.77 = 34.76; 10.01 !=
                    10.02); a value below one unit there is read to its first
                    significant digit (0.006 != 0.002), and agrees with its
                    rounding (0.006 = 0.01). ``None``: exact.
Dates and times     A date, a naive midnight timestamp and their ISO strings     temporal, text
                    ('2024-01-31', '2024-01-31 00:00:00', '...T00:00:00.000')
                    are one day. A timestamp with a time of day stays a
                    timestamp. An ISO time string (``HH:MM[:SS[.f]]``) is that
                    time.
Time zones          An aware timestamp is an instant: equal to the same instant  temporal
                    in any zone, never to a naive timestamp or a date (which
                    zone would be guessed?).
Strings             Exact and case-sensitive. '10' is not 10: engines return     text
                    numbers as numbers, so text means the query formatted the
                    answer into another type.
Bytes               By content; never equal to text.                             binary
Other types         By their own equality (UUID, interval, JSON by repr).        --
==================  ===========================================================  ==============

Floats are their exact binary value, as everywhere in Python (1.005 is 1.00499999999999989...),
and every bound of the tolerance is widened for float noise (``_tolerance``): 212.39999999999998 is
212.4, and a half-way value computed as 34.764999999999993 still rounds either way. Zero tolerance
is meant for a reference compared with itself.

Ties: where the reference's ORDER BY key ties, ``compare_with_ties`` also accepts any order of the
tied rows (an ``ordered`` question) and any choice of the rows tied at a LIMIT cut (``_ties``), up
to ``MAX_TIED_ROWS`` tied rows, the self-check's limit too.

Undecided: where a search the verdict needs gives up at its limit (the column-order search under
``column_order="any"``, a tie group past ``MAX_TIED_ROWS``), the reason is ``undecided``: not a
mismatch, and the grader makes the question unmeasured, never ``wrong``.

Speed: equal results are decided by hashing whole rows (no value is normalised); only rows left
over, and the rows that could pair with them, are normalised (column by column, each column's
work chosen once from its types) and, where the tolerance allows several partners, settled by
an exact matching. ``_multiset`` documents the algorithm and its guarantee; ``make bench``
measures it (``benchmarks/bench_compare.py``).

``POLICY_VERSION`` names these rules in every run's cohort (``eval.sql.grading.identity``): bump it in the commit
that changes what matches (a rule of the table above, not a faster way to the same answers), so that
runs graded under the old rules are never taken for the same measurement as runs graded under the new.
"""

from eval.sql.rows._columns import COLUMN_ORDERS, ColumnOrder
from eval.sql.rows._compare import compare_results
from eval.sql.rows._ties import MAX_TIED_ROWS, Ties, compare_with_ties
from eval.sql.rows._values import NORMALISERS, Normaliser, show
from eval.sql.rows._verdict import (
    COLUMN_COUNT,
    COLUMN_ORDER,
    ORDER,
    ROW_COUNT,
    SHAPE,
    UNDECIDED,
    VALUE,
    Comparison,
    Location,
    Mismatch,
)

POLICY_VERSION = 2
"""The version of the comparison policy above (part of every run's cohort)."""

__all__ = [
    "COLUMN_COUNT",
    "COLUMN_ORDER",
    "COLUMN_ORDERS",
    "MAX_TIED_ROWS",
    "NORMALISERS",
    "ORDER",
    "POLICY_VERSION",
    "ROW_COUNT",
    "SHAPE",
    "UNDECIDED",
    "VALUE",
    "ColumnOrder",
    "Comparison",
    "Location",
    "Mismatch",
    "Normaliser",
    "Ties",
    "compare_results",
    "compare_with_ties",
    "show",
]
