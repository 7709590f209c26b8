"""Whether a second run of a reference could give another answer: when it cannot, the self-check's
determinism run is not made (issue 40 point 2: it fetched every reference twice, 1M rows and all).

Two runs of one statement on one unchanging database differ only through what the statement does not
fix. On SQLite a statement runs in one thread, and the same statement on the same file is planned the
same way, so its rows come back the same, in the same order, with the same float sums; what differs is
what the statement asks the moment or chance for: ``random()``, ``randomblob()``, the date and time
functions of ``'now'`` and the ``CURRENT_*`` keywords, and the connection's counters (``changes()``,
``last_insert_rowid()``, ``total_changes()``). PostgreSQL and DuckDB may scan, aggregate and sum in
parallel (another row order, another last bit of a float sum), so there a reference always runs twice.

A statement that does not parse may differ for all this module can tell: it runs twice too.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError

from services.readonly.parsed import statement_tree

SINGLE_THREADED = frozenset({"sqlite"})
"""Dialects whose engine runs a statement in one thread, planned alike every time."""
VOLATILE_NODES: tuple[type[exp.Expr], ...] = (
    exp.Rand,
    exp.Randn,
    exp.Randstr,
    exp.Uuid,
    exp.CurrentDate,
    exp.CurrentDatetime,
    exp.CurrentTime,
    exp.CurrentTimestamp,
    exp.CurrentTimestampLTZ,
    exp.Localtime,
    exp.Localtimestamp,
)
"""sqlglot's nodes for a function of chance or of the clock."""
VOLATILE_NAMES = frozenset({"random", "randomblob", "changes", "last_insert_rowid", "total_changes", "now", "uuid"})
"""Functions sqlglot keeps by name (``exp.Anonymous``) whose value is not the statement's alone."""


def may_differ(sql: str, dialect: str) -> bool:
    """Whether a second run of ``sql`` on the same unchanged ``dialect`` database could return another result."""
    if dialect not in SINGLE_THREADED:
        return True
    try:
        tree = statement_tree(sql, dialect)
    except SqlglotError:
        return True
    for node in tree.walk():
        if isinstance(node, VOLATILE_NODES):
            return True
        if isinstance(node, exp.Anonymous) and node.name.lower() in VOLATILE_NAMES:
            return True
        if isinstance(node, exp.Literal) and node.is_string and node.this.strip().lower() == "now":
            return True  # date('now'), strftime('%Y', 'now'), julianday('now'), a 'now' modifier
    return False
