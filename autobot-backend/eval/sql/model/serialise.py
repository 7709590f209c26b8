"""The run model as JSON, and back: the JSON report is :class:`~eval.sql.model.run.SQLRun` serialised.

Its keys are a contract (spec section 7). The file is the run's fields in their order, each written by the one
converter of its type (:mod:`eval.sql.model.codec`); a field's key, and any rule for when it is written, is
declared on the field. ``schema_version`` says which shape a file has; a reader refuses a version it does not
know rather than guess. The figures (``summary``, ``two_by_two``, ``strata``, ``refusal_strata``,
``control_strata``, ``databases``, ``difficulties``, ``exact_match``, ``missed_refusals``, ``diagnosis_counts``,
``failing``, ``gate``) are the run's properties, written for readers in other languages and recomputed from the
questions on reading, so a file cannot carry figures its own questions contradict.
"""

from __future__ import annotations

from typing import Any

from eval.core.errors import HarnessError
from eval.sql.model import codec
from eval.sql.model.run import SQLRun

SCHEMA_VERSION = 2
"""1: the JSON before the run model (no ``schema_version`` key); 2: the run model serialised."""


class ReportFormatError(HarnessError):
    """A JSON report that is not a SQL run this harness can read."""


def to_json(run: SQLRun) -> dict[str, Any]:
    """The JSON report of ``run``: which shape and suite it is, then the run."""
    return {"schema_version": SCHEMA_VERSION, "suite": "sql"} | codec.to_json(run)


def from_json(data: Any, source: str = "the report") -> SQLRun:
    """The run a JSON report holds. ``source`` names the file in errors.

    A report written before the run model (no ``schema_version``) is read too: its keys are the same.
    """
    if not isinstance(data, dict) or data.get("suite") != "sql" or not isinstance(data.get("questions"), list):
        raise ReportFormatError(
            f"{source}: not a SQL suite report (python -m eval.run --suite sql --json PATH writes one)"
        )
    version = data.get("schema_version", 1)
    if version not in (1, SCHEMA_VERSION):
        raise ReportFormatError(
            f"{source}: schema_version {version!r} is not one this harness reads (1 or {SCHEMA_VERSION}); "
            "upgrade the harness or re-run the report"
        )
    try:
        return codec.from_json(SQLRun, data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportFormatError(f"{source}: a question or field is malformed ({exc!r})") from None
