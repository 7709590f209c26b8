"""Databases of the user's own that corpus questions name (``database: NAME``), in a benchmark's layout.

Spider and BIRD ship one SQLite file per database, ``<root>/NAME/NAME.sqlite`` (Spider's
``database/``, BIRD's ``dev_databases/``); ``--db-dir`` names the root. Each database is one file:
no rotations, so the rotation lint does not apply to its questions (as with ``--db-url``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from eval.errors import UsageError
from eval.sql.corpus import Question
from eval.sql.fixtures import sqlite_url

PREFIX = "db:"
"""``Question.target`` of a ``database:`` question: ``db:NAME``."""


def database_path(db_dir: Path, name: str) -> Path:
    return Path(db_dir) / name / f"{name}.sqlite"


def database_targets(questions: Sequence[Question], db_dir: Path | None) -> dict[str | None, list[str]]:
    """``db:NAME`` -> the one URL of each database the questions name, in a benchmark's layout
    (``<db_dir>/NAME/NAME.sqlite``, Spider's and BIRD's); every missing one is named."""
    named: dict[str, Question] = {}
    for q in questions:
        if q.database:
            named.setdefault(q.database, q)  # the first question that names it, for the message
    if not named:
        return {}
    if db_dir is None:
        first = next(iter(named.values()))
        raise UsageError(
            f"{first.source}: question {first.id!r} runs on database {first.database!r} ({len(named)} database(s) "
            "named in all): pass --db-dir DIR, the folder holding one folder per database (NAME/NAME.sqlite: "
            "Spider's database/, BIRD's dev_databases/)"
        )
    missing = [
        f"{q.source}: question {q.id!r}: database {name!r} not found at {database_path(db_dir, name)}"
        for name, q in sorted(named.items())
        if not database_path(db_dir, name).is_file()
    ]
    if missing:
        more = f"\n  ... and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise UsageError(
            "databases missing under --db-dir (expected DIR/NAME/NAME.sqlite):\n  " + "\n  ".join(missing[:10]) + more
        )
    return {f"{PREFIX}{name}": [sqlite_url(database_path(db_dir, name))] for name in sorted(named)}
