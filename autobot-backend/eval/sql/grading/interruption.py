"""A SQL run stopped by a signal (Ctrl-C, SIGTERM; :mod:`eval.core.interrupt`): no new statement, and a
report that says it is partial.

The self-check and the grader run SQL in threads, which a signal cannot stop from outside; they run it
through :class:`StoppableDatabase`, which starts no statement after the signal, so their threads end
within one statement's time limit. A run stopped in any phase is marked partial once, its first warning
saying by what and where (:func:`partial_warning`), and nothing is recorded from it.
"""

from __future__ import annotations

from typing import Any

from eval.core import interrupt
from eval.sql.model.run import SQLRun
from services.nl_database_service import NLDatabaseService
from services.readonly.execute import Execution


class StoppableDatabase:
    """The service as the self-check and the grader run SQL on it: after a signal,
    :class:`eval.core.interrupt.Stopped` instead of a new statement."""

    def __init__(self, service: NLDatabaseService) -> None:
        self.service = service

    def run_readonly(self, sql: str, db_url: str, *, fresh: bool = False, reference: bool = False) -> Execution:
        interrupt.stop_point()
        return self.service.run_readonly(sql, db_url, fresh=fresh, reference=reference)

    def dialect(self, db_url: str) -> str:
        return self.service.dialect(db_url)

    def structure(self, db_url: str) -> list[Any]:
        """The schema without its data (the suspect-reference checks qualify columns with it)."""
        interrupt.stop_point()
        return self.service.structure(db_url)

    def unique_keys(self, db_url: str) -> dict[str, tuple[tuple[str, ...], ...]]:
        """Each table's UNIQUE column sets (the diagnosis's keys)."""
        interrupt.stop_point()
        return self.service.unique_keys(db_url)


def partial_warning(phase: str) -> str:
    """The first warning of a partial run: what stopped it, where (``phase``), and what its figures are."""
    return (
        f"PARTIAL: the run was stopped by {interrupt.received()} {phase}; questions not graded are unmeasured, "
        "these figures describe only what was graded, and nothing from this run is recorded."
    )


def mark_partial(report: SQLRun, phase: str) -> None:
    """``report`` marked partial, once: a signal came ``phase`` (after its questions were graded)."""
    if not report.partial:
        report.partial = True
        report.warnings.insert(0, partial_warning(phase))
