"""What a reference's order leaves open on one database: its tie groups at a LIMIT cut and in an ordered
answer, read by the engine (:mod:`eval.sql.oracle.peers`), or why they cannot be resolved; and a tie inside
it (a subquery's cut, an order-sensitive window) that makes the reference arbitrary (:mod:`eval.sql.oracle.inner`).

The self-check (:mod:`eval.sql.oracle.selfcheck`) asks these on every rotation; the grader then accepts any
tie-break of the groups learned here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from operator import and_, eq, itemgetter
from typing import Any

from sqlglot import exp
from sqlglot.errors import SqlglotError

from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import ReadOnlyDatabase
from eval.sql.oracle.information import information_lost
from eval.sql.oracle.inner import inner_orderings, inner_tie
from eval.sql.oracle.lints import OrderingPlan, ordering_plan, tie_structure
from eval.sql.oracle.peers import peer_groups, peer_probe
from eval.sql.rows import MAX_TIED_ROWS, Ties
from services.readonly.execute import ErrorKind, Execution
from services.readonly.parsed import statement_tree

__all__ = ["inner_tie_reason", "reference_ties", "ties_elsewhere"]


# Complexity (radon E or F), kept as one function: each reason a reference's order cannot be resolved is a branch with
# its own message.
def reference_ties(
    q: Question, sql: str, database: ReadOnlyDatabase, url: str, dialect: str, result: Execution
) -> Ties | str | None:
    """What the reference's order leaves open on this database, or why that cannot be resolved."""
    plan = ordering_plan(sql, dialect)
    if plan is None:
        return "ordered: true, but the reference has no ORDER BY, so its row order is arbitrary" if q.ordered else None
    if isinstance(plan, str):
        return plan if q.ordered else None
    if not q.ordered and plan.limit is None:
        return None
    if plan.limit is None and not plan.offset and _no_ties(plan, sql, dialect, result):
        return None
    width = plan.width if plan.width is not None else len(result.columns)
    keys = plan.key_columns(width)
    # Only text has a collation: keys that are output columns holding none are read from their values.
    collated = any(k >= width for k in keys) or any(isinstance(row[k], str) for row in result.rows for k in keys)
    read = _peers(sql, database, url, dialect, width) if collated else None
    if read is None:  # the plain reading: Python's equality of the key values (and the noise rule)
        rows, whole = result.rows, True
        if plan.probe_sql is not None:
            probe = database.run_readonly(plan.probe_sql, url)
            if probe.error_kind is ErrorKind.ROW_CAP and plan.short_probe_sql is not None:
                probe, whole = database.run_readonly(plan.short_probe_sql, url), False
            if not probe.ok:
                return f"cannot read the ordering key ({probe.error_kind}: {probe.reason}); order by an output column"
            rows = probe.rows
        grouped = _grouped(rows, width, peer_groups(rows, keys, None))
        offset = plan.offset if plan.probe_sql is not None else 0
    else:
        grouped, whole = read
        offset = plan.offset
    # Each row is its output columns and its tie group's number: the structure is read off the groups.
    structure = tie_structure(grouped, (width,), width, plan.limit, ordered=q.ordered, offset=offset)
    if isinstance(structure, Ties) and len(structure.cut) > MAX_TIED_ROWS:
        return (
            f"row {plan.limit} ties with {len(structure.cut):,} rows at LIMIT {plan.limit}: more than the "
            f"{MAX_TIED_ROWS:,} a choice is weighed among"
        )
    if isinstance(structure, Ties) and structure.cut and not whole:
        return (
            f"row {plan.limit} ties with the first row past LIMIT {plan.limit}, and the whole tie group is too "
            "big to read (row cap): which rows come back is arbitrary"
        )
    if isinstance(structure, Ties) and plan.distinct:
        return (
            "SELECT DISTINCT ordered by a key it does not return, and that key ties: which rows come back "
            "cannot be learned; order by an output column"
        )
    if isinstance(structure, Ties) and sum(structure.groups) != len(result.rows):
        return (
            f"the ordering key read beside the output gives {sum(structure.groups)} row(s), the reference "
            f"{len(result.rows)}; order by an output column"
        )
    return structure


NOISE_FREE = 10**9
"""Integers below this apart by 1 are never one number up to the noise rule (``peers.same_number``)."""


def _no_ties(plan: OrderingPlan, sql: str, dialect: str, result: Execution) -> bool:
    """Whether the whole ordered result provably has no tie (issue 40: the peer probe fetched a 1M-row reference
    again, with a window, to find none): every ORDER BY key is an output column of integers alone (no collation,
    no NULL, nothing the noise rule joins) and no two neighbouring rows hold the same keys. False: look as before."""
    width = len(result.columns)
    keys = plan.key_columns(width) if plan.width is not None else _star_keys(sql, dialect, result.columns)
    if not keys or not result.rows or any(k >= width for k in keys):
        return False
    tied: Iterable[bool] | None = None
    for k in keys:
        kinds = result.kinds[k] if result.kinds is not None else frozenset(map(type, map(itemgetter(k), result.rows)))
        if kinds != {int}:
            return False
        column = list(map(itemgetter(k), result.rows))
        if max(column) >= NOISE_FREE or min(column) <= -NOISE_FREE:
            return False
        same = map(eq, column, islice(column, 1, None))
        tied = same if tied is None else map(and_, tied, same)
    return tied is not None and not any(tied)


def _star_keys(sql: str, dialect: str, columns: Sequence[str]) -> list[int] | None:
    """Of ``SELECT * FROM one_table ... ORDER BY col, ...``: each key's output column, by its name (one column of
    that name); None for anything else."""
    try:
        tree = statement_tree(sql, dialect)
    except SqlglotError:
        return None
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if order is None or tree.args.get("joins") or len(tree.expressions) != 1 or not tree.is_star:
        return None
    names = [c.casefold() for c in columns]
    found = []
    for ordered in order.expressions:
        key = ordered.this
        if not isinstance(key, exp.Column) or names.count(key.name.casefold()) != 1:
            return None
        found.append(names.index(key.name.casefold()))
    return found


def _peers(
    sql: str, database: ReadOnlyDatabase, url: str, dialect: str, width: int
) -> tuple[list[tuple[Any, ...]], bool] | None:
    """The reference's rows (without LIMIT and OFFSET) with their tie group as the engine orders
    them (:mod:`eval.sql.oracle.peers`), and whether they are all of them; None when the engine
    could not be asked."""
    probe = peer_probe(sql, dialect)
    if probe is None:
        return None
    got, whole = database.run_readonly(probe.sql, url), True
    if got.error_kind is ErrorKind.ROW_CAP and probe.short_sql is not None:
        got, whole = database.run_readonly(probe.short_sql, url), False
    if not got.ok or len(got.columns) != width + 2 * probe.keys:
        return None
    keys = range(width, width + probe.keys)
    ranks = range(width + probe.keys, width + 2 * probe.keys)
    return _grouped(got.rows, width, peer_groups(got.rows, keys, ranks)), whole


def _grouped(rows: Sequence[Sequence[Any]], width: int, groups: list[int]) -> list[tuple[Any, ...]]:
    return [(*row[:width], group) for row, group in zip(rows, groups)]


def inner_tie_reason(sql: str, database: ReadOnlyDatabase, url: str, dialect: str) -> str | None:
    """A tie inside the reference (a subquery's LIMIT cut, an order-sensitive window) that makes it arbitrary."""
    probes = inner_orderings(sql, dialect)
    if isinstance(probes, str):
        return probes
    for probe in probes:
        got = database.run_readonly(probe.sql, url)
        if got.ok:  # a part that cannot run on its own (correlated) is not checked
            found = inner_tie(probe, got.rows)
            if found:
                return found
    return None


def ties_elsewhere(
    q: Question, sql: str, database: ReadOnlyDatabase, url: str, dialect: str, result: Execution
) -> Ties | str | None:
    """What the reference leaves open on a database the self-check never saw (a neighbour of the counterexample
    search), or why it cannot grade there: the self-check's checks of one rotation, each a reason (not one value
    for a scalar question, information lost at its decimals, a tie it cannot break, a tie inside it)."""
    if q.shape == "scalar" and (len(result.columns) != 1 or len(result.rows) != 1):
        return f"shape: scalar, but the reference returns {len(result.rows)} row(s) of {len(result.columns)} column(s)"
    lost = information_lost(result.rows, q.decimals, result.kinds)
    if lost:
        return lost
    tie = reference_ties(q, sql, database, url, dialect, result)
    if isinstance(tie, str):
        return tie
    return inner_tie_reason(sql, database, url, dialect) or tie
