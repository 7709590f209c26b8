"""What a Spider database declares and what its data keeps: the foreign keys its SQLite file declares, those the
counterexample search can hold a neighbour to, and the rows that already break one.

Spider's databases were converted from other engines, and some declare what their data does not keep (flights
whose airport codes name no airport) or what SQLite cannot check (a foreign key to a column that is no key). The
search holds every declared constraint it can read on the rows an edit touches (:mod:`eval.sql.counterexample`),
so these figures say where a neighbour is held to less than the schema says, and why.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from eval.sql.counterexample.data import TooBig, read_base


@dataclass(frozen=True)
class Audited:
    database: str
    declared: int
    """Distinct foreign keys the file declares (``PRAGMA foreign_key_list``; one declared twice counts once)."""
    held: int
    """Foreign keys the search reads and holds (one naming a table or column the database lacks is left out)."""
    broken: int
    """Rows that break a declared foreign key, each counted once (``PRAGMA foreign_key_check``'s row ids)."""
    unchecked: tuple[str, ...] = ()
    """Tables SQLite cannot check (``foreign key mismatch``: the referred columns are no key)."""
    too_big: str = ""

    @property
    def broken_label(self) -> str:
        return "cannot be checked" if self.unchecked else str(self.broken)

    @property
    def note(self) -> str:
        """A line for the page when the database is held to less than it declares, or cannot be searched."""
        if self.too_big:
            return f"{self.database}: not searched: {self.too_big}."
        said = []
        if self.held < self.declared:
            said.append(f"{self.declared - self.held} of its {self.declared} declared foreign keys are not held")
        if self.unchecked:
            said.append(
                f"SQLite cannot check the foreign keys of {', '.join(self.unchecked)} (they refer to columns that "
                "are no key: 'foreign key mismatch'); the search holds them as declared, a value present in the "
                "referred column"
            )
        if self.broken:
            said.append(
                f"{self.broken} row(s) of the shared data break a declared foreign key; a neighbour may keep them "
                "but no edit makes another"
            )
        return f"{self.database}: {'; '.join(said)}." if said else ""


def audit(databases: Path) -> list[Audited]:
    """Each ``<name>/<name>.sqlite`` under ``databases``, by name."""
    return [audit_one(f) for f in sorted(databases.glob("*/*.sqlite")) if f.parent.name == f.stem]


def audit_one(path: Path) -> Audited:
    uri = f"file:{path}?mode=ro"
    with sqlite3.connect(uri, uri=True) as con:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        declared, broken, unchecked = 0, 0, []
        for t in tables:
            quoted = '"' + t.replace('"', '""') + '"'
            declared += len(_distinct_keys(con.execute(f"PRAGMA foreign_key_list({quoted})").fetchall()))
            try:
                broken += len({row[1] for row in con.execute(f"PRAGMA foreign_key_check({quoted})")})
            except sqlite3.OperationalError as exc:
                if "mismatch" not in str(exc):
                    raise
                unchecked.append(t)
    con.close()
    try:
        held = len(read_base(f"sqlite:///{path}").schema.foreign_keys)
    except TooBig as exc:
        return Audited(path.stem, declared, 0, broken, tuple(unchecked), too_big=str(exc))
    return Audited(path.stem, declared, held, broken, tuple(unchecked))


def _distinct_keys(rows: list[tuple[object, ...]]) -> set[tuple[object, ...]]:
    """``PRAGMA foreign_key_list``'s rows (id, seq, table, from, to, ...) as one entry per distinct key."""
    by_id: dict[object, list[tuple[object, ...]]] = {}
    for row in rows:
        by_id.setdefault(row[0], []).append(row)
    return {tuple((r[2], r[3], r[4]) for r in sorted(parts, key=lambda r: str(r[1]))) for parts in by_id.values()}
