"""The edits that make a neighbour of the graded database, each generic over the declared foreign keys.

* :class:`Keep`: a subset of a root table's rows, with everything that refers to the rows left out deleted
  (and, through a self-reference, the rows a kept row names kept too);
* :class:`Drop`: rows deleted, with everything that refers to them;
* :class:`Clone`: a row copied under a fresh key (a UNIQUE text made unique), with every row that refers to
  it copied to refer to the copy (self-references aside: a customer's referrals are not its dependents);
* :class:`CloneEach`: several rows cloned so at once (the rows a period holds, doubled);
* :class:`Copy`: one row's value copied into another row (a tie: two namesakes, two equal prices);
* :class:`Put`: a value written into a row (a literal of either query or one unit either side; NULL).

An edit names rows by their ids in the base (:mod:`eval.sql.counterexample.data`), so any subset of a
neighbour's edits still applies (the shrinker relies on it): an edit whose row is gone does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eval.sql.counterexample.data import Key, Values, Working, has_null, key_of, without_null
from eval.sql.counterexample.schema import ForeignKey


@dataclass(frozen=True)
class Keep:
    table: str
    rows: frozenset[int]

    def apply(self, w: Working) -> None:
        present = w.rows(self.table)
        kept = {r for r in self.rows if r in present}
        for fk in w.schema.children(self.table):  # a kept row keeps the rows it names in its own table
            if fk.self_reference:
                kept = _upward(w, fk, kept)
        delete_closure(w, self.table, [r for r in present if r not in kept])

    def describe(self, total: int) -> str:
        return f"kept {len(self.rows)} of the {total} rows of {self.table} (and what refers to them)"


@dataclass(frozen=True)
class Drop:
    table: str
    rows: frozenset[int]

    def apply(self, w: Working) -> None:
        delete_closure(w, self.table, sorted(self.rows))

    def describe(self, total: int) -> str:
        return f"deleted {len(self.rows)} row(s) of {self.table} (and what refers to them)"


@dataclass(frozen=True)
class Clone:
    table: str
    row: int

    def apply(self, w: Working) -> None:
        if self.row in w.rows(self.table):
            clone(w, self.table, self.row, {})

    def describe(self, total: int) -> str:
        return f"copied a row of {self.table} under a new key, with the rows that refer to it"


@dataclass(frozen=True)
class CloneEach:
    """Rows copied at once, each as :class:`Clone` copies one: what a period holds, doubled."""

    table: str
    rows: frozenset[int]

    def apply(self, w: Working) -> None:
        taken = _Taken(w)
        for row in sorted(self.rows):
            if row in w.rows(self.table):
                clone(w, self.table, row, {}, taken=taken)

    def describe(self, total: int) -> str:
        return f"copied {len(self.rows)} row(s) of {self.table} under new keys, with the rows that refer to them"


@dataclass(frozen=True)
class Copy:
    table: str
    column: int
    source: int
    target: int

    def apply(self, w: Working) -> None:
        rows = w.rows(self.table)
        if self.source in rows and self.target in rows:
            target = list(rows[self.target])
            target[self.column] = rows[self.source][self.column]
            w.put(self.table, self.target, tuple(target))

    def describe(self, total: int) -> str:
        return f"copied {self.table}.{{column}} from one row into another"


@dataclass(frozen=True)
class Put:
    table: str
    column: int
    row: int
    value: Any

    def apply(self, w: Working) -> None:
        rows = w.rows(self.table)
        if self.row in rows:
            values = list(rows[self.row])
            values[self.column] = self.value
            w.put(self.table, self.row, tuple(values))

    def describe(self, total: int) -> str:
        return f"set {self.table}.{{column}} of a row to {self.value!r}"


Edit = Keep | Drop | Clone | CloneEach | Copy | Put


def describe(edit: Edit, w: Working) -> str:
    """One line for a person: what the edit did, in the schema's names."""
    table = w.schema.tables[edit.table]
    line = edit.describe(len(w.base.rows[edit.table]))
    if isinstance(edit, Copy | Put):
        line = line.replace("{column}", table.columns[edit.column].name)
    return line


def delete_closure(w: Working, table: str, rows: list[int]) -> None:
    """Delete ``rows`` of ``table`` and, through every foreign key, every row that refers to a deleted row."""
    pending: list[tuple[str, list[int]]] = [(table, rows)]
    while pending:
        name, doomed = pending.pop()
        current = w.rows(name)
        doomed = [r for r in doomed if r in current]
        if not doomed:
            continue
        for fk in w.schema.children(name):
            get = key_of(fk.parent_columns)
            keys = {get(current[r]) for r in doomed}
            keys = without_null(keys, fk.parent_columns)
            found = w.having(fk.child, fk.columns, keys)
            if fk.self_reference:
                going = set(doomed)
                found = [r for r in found if r not in going]
            if found:
                pending.append((fk.child, found))
        w.delete(name, doomed)


def _upward(w: Working, fk: ForeignKey, kept: set[int]) -> set[int]:
    """``kept`` with every row a kept row names through the self-reference ``fk``, to the top."""
    rows = w.rows(fk.parent)
    named_by, key = key_of(fk.columns), key_of(fk.parent_columns)
    frontier = list(kept)
    while frontier:
        named = named_by(rows[frontier.pop()])
        if has_null(named, fk.columns):
            continue
        for r in w.having(fk.parent, fk.parent_columns, [named]):
            if r not in kept and key(rows[r]) == named:
                kept.add(r)
                frontier.append(r)
    return kept


class _Taken:
    """Key values a clone must avoid: the base's (from its index) and the neighbour's changed rows', kept up to
    date as the clone adds rows (each read once per clone: a product cloned with 300 order lines checks 300 keys)."""

    def __init__(self, w: Working) -> None:
        self.w = w
        self.extra: dict[tuple[str, tuple[int, ...]], set[Key]] = {}
        self.tops: dict[tuple[str, int, tuple[int, ...]], dict[Key, Any]] = {}

    def _extra(self, table: str, columns: tuple[int, ...]) -> set[Key]:
        found = self.extra.get((table, columns))
        if found is None:
            rows, get = self.w.rows(table), key_of(columns)
            found = self.extra[(table, columns)] = {get(rows[r]) for r in self.w.touched.get(table, ()) if r in rows}
        return found

    def holds(self, table: str, columns: tuple[int, ...], key: Key) -> bool:
        if key in self._extra(table, columns):
            return True
        rows, touched = self.w.rows(table), self.w.touched.get(table, set())
        return any(r in rows and r not in touched for r in self.w.base.index(table, columns).get(key, ()))

    def added(self, table: str, values: Values) -> None:
        for (name, columns), found in self.extra.items():
            if name == table:
                found.add(key_of(columns)(values))

    def fresh(self, table: str, column: int, current: Any, within: tuple[int, ...], values: list[Any]) -> Any:
        """A value of ``column`` no row sharing ``within``'s values holds: the largest integer there plus one, or
        the text with a number added; None when the kind has none to give."""
        group = tuple(values[c] for c in within)
        if isinstance(current, int) and not isinstance(current, bool):
            tops = self.tops.get((table, column, within))
            if tops is None:
                tops = self.tops[(table, column, within)] = dict(self.w.base.tops(table, column, within))
                rows = self.w.rows(table)
                for r in self.w.touched.get(table, ()):
                    if r in rows:
                        x, g = rows[r][column], tuple(rows[r][c] for c in within)
                        if isinstance(x, int) and not isinstance(x, bool) and (g not in tops or x > tops[g]):
                            tops[g] = x
            made = tops.get(group, 0) + 1
            tops[group] = made
            return made
        if isinstance(current, str):
            local, at, domain = current.partition("@")
            for n in range(2, 10_000):
                text = f"{local}+{n}@{domain}" if at else f"{current} {n}"
                if not self.holds(table, (column,), text):
                    return text
        return None


def clone(
    w: Working,
    table: str,
    row: int,
    mapping: dict[tuple[str, int], int],
    override: dict[int, Any] | None = None,
    taken: _Taken | None = None,
) -> int | None:
    """Copy ``row`` of ``table`` under a fresh key (``override``: columns a parent's copy sets), then its
    dependents; the copy's id, or None when no fresh key can be made."""
    taken = taken or _Taken(w)
    t = w.schema.tables[table]
    original = w.rows(table)[row]
    values = list(original)
    for c, v in (override or {}).items():
        values[c] = v
    for columns in [s for s in (t.key, *t.unique) if s]:
        if not taken.holds(table, columns, key_of(columns)(tuple(values))):
            continue
        free = [c for c in columns if c not in (override or {})]
        if not free:
            return None
        c = free[-1]
        made = taken.fresh(table, c, values[c], tuple(x for x in columns if x != c), values)
        if made is None:
            return None
        values[c] = made
    copy = w.add(table, tuple(values))
    taken.added(table, tuple(values))
    mapping[(table, row)] = copy
    for fk in w.schema.children(table):
        if fk.self_reference:
            continue
        key = key_of(fk.parent_columns)(original)
        if has_null(key, fk.parent_columns):
            continue
        new_key = dict(zip(fk.columns, (values[c] for c in fk.parent_columns)))
        for child in w.having(fk.child, fk.columns, [key]):
            if (fk.child, child) not in mapping:
                clone(w, fk.child, child, mapping, new_key, taken)
    return copy


def referring(w: Working, fk: ForeignKey, keys: set[Key]) -> list[int]:
    """The rows of ``fk.child`` whose foreign key is one of ``keys``."""
    return w.having(fk.child, fk.columns, keys)


def row_key(values: Values, columns: tuple[int, ...]) -> Key:
    return key_of(columns)(values)
