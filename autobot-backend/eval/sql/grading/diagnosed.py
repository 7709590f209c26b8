"""The diagnosis a graded answer carries (issues 25 and 34): for an answerable ``wrong``, from both SQL texts,
both results on the rotation that failed, the database's catalog and edits of the candidate run there; for an
answerable ``error``, from the database's message.

Grading calls these next to where it gives the verdict; the diagnoser (``eval.sql.diagnosis``) sees only
what a grader has, never the verdict's reason. An edit of the candidate runs through the same read-only path
as any answer and is judged by the grader's own comparison (``judge``: tolerance and ties included). A
diagnoser that fails (a bug, a query too deep to walk) leaves the verdict as it is: the answer's diagnosis is
then ``other``, saying so, and a warning is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from eval.sql.corpus.questions import Question
from eval.sql.diagnosis import Catalog, Probe, catalog_of, diagnose, diagnose_error
from eval.sql.model.diagnosis import Category, Diagnosis
from services.readonly.execute import Execution

log = logging.getLogger(__name__)


class Runs(Protocol):
    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = False) -> Execution: ...


@runtime_checkable
class Described(Protocol):
    """A database that can say its schema (the service, or :class:`~services.readonly.execute.ReadOnlySQL`)."""

    def structure(self, db_url: str) -> list[Any]: ...

    def unique_keys(self, db_url: str) -> dict[str, tuple[tuple[str, ...], ...]]: ...


def of_wrong(
    q: Question,
    sql: str,
    ref: Execution,
    got: Execution,
    dialect: str | None,
    *,
    database: Runs | None = None,
    url: str | None = None,
    judge: Callable[[Execution], bool] | None = None,
) -> Diagnosis | None:
    """A wrong answer's diagnosis, or None for a must-refuse question (a missed refusal is its own verdict).
    With ``database``, ``url`` and ``judge`` (whether an execution is right, as graded), edits of the
    candidate are run and judged there."""
    if q.expect != "answer":
        return None
    engine = dialect or "sqlite"
    try:
        probe = None
        if database is not None and url is not None and judge is not None:
            probe = _probe(database, url, judge)
        return diagnose(
            sql,
            ref.sql,
            got.rows,
            ref.rows,
            dialect=engine,
            ordered=q.ordered,
            decimals=q.decimals,
            column_order_any=q.column_order == "any",
            catalog=catalog(database, url, engine) if database is not None and url is not None else None,
            probe=probe,
        )
    except Exception as exc:  # a diagnosis explains a verdict; its failure must never cost the run its verdicts
        log.warning("%s: the diagnosis failed (%s: %s); the verdict stands", q.id, type(exc).__name__, exc)
        why = f"no diagnosis: the diagnoser failed ({type(exc).__name__}); the verdict stands"
        return Diagnosis(Category.OTHER, (Category.OTHER,), why)


def _probe(database: Runs, url: str, judge: Callable[[Execution], bool]) -> Probe:
    def run(sql: str) -> tuple[Any, bool] | None:
        done = database.run_readonly(sql, url)
        return (done.rows, judge(done)) if done.ok else None

    return Probe(run)


def catalog(database: object, url: str, dialect: str) -> Catalog | None:
    """The catalog of ``url`` when ``database`` can say its schema (None when it cannot, or reading it fails)."""
    if not isinstance(database, Described):
        return None
    try:  # both read once per database and kept by the database object
        return catalog_of(database.structure(url), database.unique_keys(url), dialect=dialect)
    except Exception as exc:  # a schema that cannot be read leaves the diagnosis without keys, never without a verdict
        log.warning("the diagnosis reads no catalog of %r (%s)", url, type(exc).__name__)
        return None


def of_error(q: Question, reason: str | None) -> Diagnosis | None:
    """An answer that did not run: ``runtime``, or ``schema`` when a name is not there or is ambiguous."""
    return diagnose_error(reason) if q.expect == "answer" else None
