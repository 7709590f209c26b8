"""Questions a corpus file leaves out but counts: ``skipped:``, what an import could not grade.

``bench_import --skip-missing-databases`` leaves out the questions whose database is missing (Spider's
``wta_1`` is absent from many copies) and lists them in the file, each with its original id::

    skipped:
      - id: spider-0123
        database: wta_1
        reason: missing database

so every output of a run says how many were left out and why ("2 question(s) skipped at import
(missing databases: wta_1)"), and no figure passes for the whole benchmark. A skipped id is not a
question of the corpus and may not be one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

MISSING_DATABASE = "missing database"
KEYS = ("id", "database", "reason")


@dataclass(frozen=True)
class Skipped:
    id: str
    reason: str
    database: str | None = None


def parse_skipped(value: Any) -> tuple[list[Skipped], list[str]]:
    """The ``skipped:`` list, and one problem per entry that is not ``{id, reason[, database]}``."""
    if not isinstance(value, list) or not value:
        return [], ["'skipped' must be a non-empty list of {id, database, reason}"]
    out, problems = [], []
    for n, item in enumerate(value, 1):
        where = f"'skipped' entry {n}"
        if not isinstance(item, dict):
            problems.append(f"{where} must be a mapping with {', '.join(KEYS)}")
            continue
        unknown = sorted(str(k) for k in item if k not in KEYS)
        qid, reason, database = item.get("id"), item.get("reason"), item.get("database")
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(KEYS)})")
        elif not _line(qid) or any(c.isspace() for c in qid):
            problems.append(f"{where}: 'id' must be a non-empty string without spaces, found {qid!r}")
        elif not _line(reason):
            problems.append(f"{where} ({qid}): 'reason' must be one line of text, found {reason!r}")
        elif database is not None and (not _line(database) or any(c in database for c in "/\\\0")):
            problems.append(f"{where} ({qid}): 'database' must be a database name, found {database!r}")
        else:
            out.append(Skipped(qid, reason.strip(), database))
    return out, problems


class Left(Protocol):
    """A question left out, as a corpus (:class:`Skipped`) or a run's stamps hold it."""

    @property
    def database(self) -> str | None: ...
    @property
    def reason(self) -> str: ...


def skipped_line(entries: Sequence[Left]) -> str | None:
    """``2 question(s) skipped at import (missing databases: wta_1)``; None when nothing was skipped."""
    if not entries:
        return None
    missing = sorted({str(e.database) for e in entries if e.reason == MISSING_DATABASE})
    others = sorted({e.reason for e in entries if e.reason != MISSING_DATABASE})
    why = ([f"missing databases: {', '.join(missing)}"] if missing else []) + others
    return f"{len(entries)} question(s) skipped at import ({'; '.join(why)})"


def _line(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip()) and "\n" not in value.strip()
