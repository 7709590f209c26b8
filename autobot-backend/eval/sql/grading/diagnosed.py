"""The diagnosis a graded answer carries (issue 25): for an answerable ``wrong``, from both SQL texts and
both results on the rotation that failed; for an answerable ``error``, from the database's message.

Grading calls these next to where it gives the verdict; the diagnoser (``eval.sql.diagnosis``) sees
only the two SQL texts, the two results and the question's declared order, decimals and column
order, never the verdict's reason. A diagnoser that fails (a bug, a query too deep to walk) leaves the
verdict as it is: the answer's diagnosis is then ``other``, saying so, and a warning is logged.
"""

from __future__ import annotations

import logging

from eval.sql.corpus.questions import Question
from eval.sql.diagnosis import diagnose, diagnose_error
from eval.sql.model.diagnosis import Category, Diagnosis
from services.readonly.execute import Execution

log = logging.getLogger(__name__)


def of_wrong(q: Question, sql: str, ref: Execution, got: Execution, dialect: str | None) -> Diagnosis | None:
    """A wrong answer's diagnosis, or None for a must-refuse question (a missed refusal is its own verdict)."""
    if q.expect != "answer":
        return None
    try:
        return diagnose(
            sql,
            ref.sql,
            got.rows,
            ref.rows,
            dialect=dialect or "sqlite",
            ordered=q.ordered,
            decimals=q.decimals,
            column_order_any=q.column_order == "any",
        )
    except Exception as exc:  # a diagnosis explains a verdict; its failure must never cost the run its verdicts
        log.warning("%s: the diagnosis failed (%s: %s); the verdict stands", q.id, type(exc).__name__, exc)
        why = f"no diagnosis: the diagnoser failed ({type(exc).__name__}); the verdict stands"
        return Diagnosis(Category.OTHER, (Category.OTHER,), why)


def of_error(q: Question, reason: str | None) -> Diagnosis | None:
    """An answer that did not run: ``runtime``, or ``schema`` when a table or column is not there."""
    return diagnose_error(reason) if q.expect == "answer" else None
