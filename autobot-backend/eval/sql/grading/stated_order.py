"""An answer to an ordered question must order its rows itself.

Without an outermost ``ORDER BY`` the order of the rows is the engine's accident: SQLite's GROUP BY
happens to sort, DuckDB's does not, so the same SQL would pass on one engine and fail on the other.
Such an answer is graded as if order did not matter, and then, where its rows are right, ``wrong``
for ``order`` with the reason; where they are not, the row comparison's verdict stands, with a
note. Either way every engine gives the same verdict. A reference of at most one row on every
rotation has no order to state, and is graded as usual; so is SQL sqlglot cannot parse.
"""

from __future__ import annotations

import dataclasses

import sqlglot
from sqlglot import exp

from eval.sql.model.outcome import SQLOutcome, Verdict
from services.readonly.parsed import statement_tree

ORDER = "order"
WHY = (
    "the SQL has no outermost ORDER BY, and the question asks for its rows in order: without one the "
    "order is whatever the engine happens to produce (SQLite's GROUP BY often sorts, DuckDB's does not)"
)


def orders_its_rows(sql: str, dialect: str) -> bool | None:
    """Whether ``sql``'s outermost query has an ORDER BY; None when sqlglot cannot parse it."""
    try:
        tree = statement_tree(sql, dialect)
    except sqlglot.errors.SqlglotError:
        return None
    while isinstance(tree, exp.Subquery) and not tree.args.get("order"):
        tree = tree.this
    return isinstance(tree, exp.Query) and bool(tree.args.get("order"))


def without_stated_order(graded: SQLOutcome) -> SQLOutcome:
    """The verdict of an answer without ORDER BY to an ordered question, from its grade as unordered."""
    if graded.verdict is Verdict.PASS:
        return dataclasses.replace(
            graded, verdict=Verdict.WRONG, reason=ORDER, detail=f"the rows are right, but {WHY}", rotations_matched=0
        )
    if graded.verdict is Verdict.WRONG:
        return dataclasses.replace(graded, detail=f"{graded.detail}; and {WHY}")
    return graded
