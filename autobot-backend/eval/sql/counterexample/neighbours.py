"""Which neighbours to try: a plan of the likeliest first, then edits drawn at random (seeded), weighted towards
the rows the two queries care about.

*Rows that matter*: rows at a literal of either query or one unit either side, rows holding text the reference's
answer shows (a top customer), the rows that refer to those (the customer's orders), and the rows dated inside
the period a date literal names (its day, month or year). The plan (:mod:`~eval.sql.counterexample.plan`), each kind
in turn: the tiny database of the root rows that the rows at one literal's value hang from (the day after a period
with its customer alone); a row the answer shows cloned with what refers to it (namesakes that tie); a literal's
period thinned out or doubled (its rows deleted or cloned: a month's total moved past the others); a row the
answer hangs on placed at a literal's value, its other nullable values of the kind cleared (an order moved to
the day after the period cannot keep a shipping date inside it). Then the issue's six kinds drawn in turn, and
the two a period allows: rows placed at a literal (:class:`~eval.sql.counterexample.edits.Put`, sometimes in
the tiny database around them), a row cloned with what refers to it, a subset of a root table's rows with their
foreign-key closure, a value copied between rows (a tie), a nullable value set to NULL, a leaf row deleted, a
period thinned or doubled. A drawn neighbour is one to three of them; half the rows an edit picks are rows that
matter, the others drawn uniformly, so nothing is out of reach.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from eval.sql.counterexample.data import Base, key_of
from eval.sql.counterexample.edits import Clone, CloneEach, Copy, Drop, Edit, Keep, Put
from eval.sql.counterexample.plan import GATHERED, planned
from eval.sql.counterexample.reading import Focus
from eval.sql.counterexample.values import as_date, for_column
from eval.sql.fixtures.rules import Rule

KINDS = ("put", "keep", "clone", "thin", "keep", "copy", "double", "null", "drop")
"""The turn of kinds a neighbour's first edit takes; a subset twice, being the cheapest to judge (a small database)
and the one that most often shows a difference (a tiny database leaves nothing to hide it)."""
SUBSET_SIZES = (1, 1, 1, 2, 3, 0.1, 0.5, 0.9)
"""How many root rows a subset keeps: most often one (a tiny database shows what a big one hides), a few, or a
share."""


@dataclass
class Proposer:
    """Draws neighbours (lists of edits) of one base for one pair of queries."""

    base: Base
    focus: Focus
    rng: random.Random
    groups: list[tuple[str, list[int]]] = field(default_factory=list)
    """Rows that matter, in groups of one table: the rows at one value of a literal, the rows showing one text of
    the reference's answer. A row is drawn by group first, so the two orders placed on the day after the period
    are as likely as the hundreds placed on a month's first day."""
    at_literal: list[tuple[str, list[int]]] = field(default_factory=list)
    """The rows at one value of a literal (or one unit either side), by table."""
    shown: list[tuple[str, list[int]]] = field(default_factory=list)
    """The rows holding text the reference's answer shows (a top customer), by table: the rows a clone copies
    into namesakes."""
    hanging: list[tuple[str, list[int]]] = field(default_factory=list)
    """The rows that refer to a row the answer shows (a top customer's orders), by table."""
    periods: list[tuple[str, list[int]]] = field(default_factory=list)
    """The rows dated inside the period a literal names (its day, month or year), by table."""
    plan: list[list[Edit]] = field(default_factory=list)
    """The first neighbours, proposed before any drawn at random (:func:`~eval.sql.counterexample.plan.planned`)."""
    _roots: dict[tuple[str, int], dict[str, int]] = field(default_factory=dict)
    rules: Sequence[Rule] = ()
    """The fixture's stated rules: a planned value they forbid is not tried."""
    _turn: int = 0

    def __post_init__(self) -> None:
        rows = self.base.rows
        for target in self.focus.targets:
            at_value = self.base.by_value(target.table, target.column)
            before: list[int] = []
            for x in target.values:
                day = as_date(x)
                at = at_value.get(day if day is not None else x)
                if at:
                    self.groups.append((target.table, at))
                    self.at_literal.append((target.table, at))
                    if before:  # the period's last day with the day after it: in and just out, side by side
                        self.at_literal.append((target.table, before + at))
                before = at or []
            for first, last in target.periods:
                inside = [r for d, at in at_value.items() if isinstance(d, date) and first <= d <= last for r in at]
                if inside:
                    self.periods.append((target.table, sorted(inside)))
        shown: list[tuple[str, list[int]]] = []
        for text in sorted(self.focus.shown):
            for table in self.focus.tables:
                shows = [r for r, v in rows[table].items() if text in v]
                if shows:
                    shown.append((table, shows))
        self.groups += shown
        self.shown = shown
        schema = self.base.schema
        for table, group in shown:  # the rows that hang from a row the answer shows: a top customer's orders
            for fk in schema.children(table):
                if fk.self_reference or fk.child not in self.focus.tables:
                    continue
                get, index = key_of(fk.parent_columns), self.base.index(fk.child, fk.columns)
                hanging = sorted({r for p in group for r in index.get(get(rows[table][p]), ())})
                if hanging:
                    self.groups.append((fk.child, hanging))
                    self.hanging.append((fk.child, hanging))

        self.plan = planned(self, self.base, self.focus, self.rng, self.rules)

    def _root_of(self, table: str, row: int) -> dict[str, int]:
        """The root rows ``row`` hangs from, by root table (following each foreign key up)."""
        found = self._roots.get((table, row))
        if found is not None:
            return found
        schema, rows = self.base.schema, self.base.rows
        found = {}
        if table in schema.roots:
            found[table] = row
        for fk in schema.parents(table):
            if fk.self_reference:
                continue
            key = tuple(rows[table][row][c] for c in fk.columns)
            parents = self.base.index(fk.parent, fk.parent_columns).get(key[0] if len(key) == 1 else key)
            if parents:
                for root, r in self._root_of(fk.parent, parents[0]).items():
                    found.setdefault(root, r)
        self._roots[(table, row)] = found
        return found

    def _group(self, groups: Sequence[tuple[str, list[int]]]) -> tuple[str, list[int]]:
        """One group, a small one more likely than a big one (by one over the square root of its size): the two
        orders at a literal's value weigh more than the thousands of completed orders."""
        return self.rng.choices(groups, weights=[1 / len(g) ** 0.5 for _, g in groups])[0]

    def _row(self, table: str) -> int | None:
        rows = self.base.rows[table]
        mine = [(t, g) for t, g in self.groups if t == table]
        if mine and self.rng.random() < 0.5:
            return self.rng.choice(self._group(mine)[1])
        return self.rng.choice(list(rows)) if rows else None

    def _pick(self, tables: Sequence[str]) -> tuple[str, int] | None:
        """A table and a row of it: half the time a row that matters (by group), else any row of any table."""
        groups = [(t, g) for t, g in self.groups if t in tables]
        if groups and self.rng.random() < 0.5:
            table, group = self._group(groups)
            return table, self.rng.choice(group)
        if not tables:
            return None
        chosen = self.rng.choice(list(tables))
        rows = list(self.base.rows[chosen])
        return (chosen, self.rng.choice(rows)) if rows else None

    def _witness(self, root: str) -> int | None:
        """A root row of ``root`` that a row that matters hangs from."""
        for _ in range(8):
            if not self.groups:
                return None
            table, group = self._group(self.groups)
            found = self._root_of(table, self.rng.choice(group)).get(root)
            if found is not None:
                return found
        return None

    def propose(self) -> list[Edit]:
        """The next neighbour: the plan's next, then one to three edits, the first of this turn's kind."""
        if self.plan:
            return self.plan.pop(0)
        count = self.rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
        edits: list[Edit] = []
        for n in range(count * 3):
            kind = KINDS[self._turn % len(KINDS)] if n == 0 else self.rng.choice(KINDS)
            edits += self._edit(kind)
            if len(edits) >= count:
                break
        self._turn += 1
        return edits

    def _edit(self, kind: str) -> Sequence[Edit]:
        maker = {
            "put": self._put,
            "clone": self._clone,
            "keep": self._keep,
            "copy": self._copy,
            "null": self._null,
            "drop": self._drop,
            "thin": self._thin,
            "double": self._double,
        }[kind]
        return maker()

    def _put(self) -> list[Edit]:
        if not self.focus.targets:
            return []
        target = self.rng.choice(self.focus.targets)
        value = self.rng.choice(target.values)
        rows = self.base.rows[target.table]
        kind = self.base.schema.tables[target.table].columns[target.column].kind
        example = next((v[target.column] for v in rows.values() if v[target.column] is not None), None)
        written = for_column(value, kind, example)
        how_many = self.rng.choice((1, 1, 2, 5))
        table = self.base.schema.tables[target.table]
        # Half the time the row's other nullable values of the kind go: an order moved past the period cannot
        # keep a shipping date inside it, where an order without one is data the rules allow.
        cleared = (
            [c for c, col in enumerate(table.columns) if c != target.column and col.nullable and col.kind == kind]
            if self.rng.random() < 0.5
            else []
        )
        edits: list[Edit] = []
        for _ in range(how_many):
            row = self._row(target.table)
            if row is not None:
                edits.append(Put(target.table, target.column, row, written))
                edits += [Put(target.table, c, row, None) for c in cleared]
        if edits and self.rng.random() < 0.4:  # around a tiny database: one a single row placed there can tip
            edits[:0] = self._around(target.table, [e.row for e in edits if isinstance(e, Put)])
        return edits

    def _around(self, table: str, rows: Sequence[int]) -> list[Edit]:
        """A subset of one root table: the root rows ``rows`` hang from, and up to two others."""
        hanging = [self._root_of(table, r) for r in rows]
        roots = sorted({t for found in hanging for t in found})
        if not roots:
            return []
        root = self.rng.choice(roots)
        kept = {found[root] for found in hanging if root in found}
        every = list(self.base.rows[root])
        kept.update(self.rng.sample(every, min(len(every), self.rng.choice((0, 1, 2)))))
        return [Keep(root, frozenset(kept))]

    def _share(self) -> tuple[str, list[int]] | None:
        """Some of the rows dated inside a literal's period: a share, most often most of them."""
        if not self.periods:
            return None
        table, rows = self.rng.choice(self.periods)
        share = self.rng.choice((1.0, 0.9, 0.5, 0.2))
        return table, sorted(self.rng.sample(rows, max(1, round(share * len(rows)))))

    def _thin(self) -> list[Edit]:
        """A period thinned out: its rows deleted (with what refers to them), so its total falls."""
        picked = self._share()
        return [] if picked is None else [Drop(picked[0], frozenset(picked[1]))]

    def _double(self) -> list[Edit]:
        """A period doubled: its rows cloned with what refers to them, so its total grows."""
        picked = self._share()
        return [] if picked is None else [CloneEach(picked[0], frozenset(picked[1]))]

    def _clone(self) -> list[Edit]:
        if self.shown and self.rng.random() < 0.5:  # a row the answer shows, copied: namesakes that tie
            table, group = self._group(self.shown)
            return [Clone(table, self.rng.choice(group))]
        picked = self._pick(self._tables(parents=True))
        return [] if picked is None else [Clone(*picked)]

    def _keep(self) -> list[Edit]:
        schema, rows = self.base.schema, self.base.rows
        roots = [t for t in schema.roots if rows[t] and self._reaches(t)]
        if not roots:
            return []
        small = [(t, g) for t, g in self.groups if len(g) <= GATHERED]
        if small and self.rng.random() < 0.5:  # the root rows one small group hangs from: a day's orders' customers
            table, group = self._group(small)
            hanging = [self._root_of(table, r) for r in group]
            mine = sorted({t for found in hanging for t in found if t in roots})
            if mine:
                root = self.rng.choice(mine)
                return [Keep(root, frozenset(found[root] for found in hanging if root in found))]
        first = self._witnessed(roots) if self.rng.random() < 0.6 else None
        table = first[0] if first is not None else self.rng.choice(roots)
        size = self.rng.choice(SUBSET_SIZES)
        every = list(rows[table])
        n = max(1, min(len(every), size if isinstance(size, int) else round(size * len(every))))
        kept: set[int] = set() if first is None else {first[1]}
        for _ in range(min(n, 3) - len(kept)):  # up to three of them root rows that rows that matter hang from
            witness = self._witness(table) if self.rng.random() < 0.6 else None
            if witness is not None:
                kept.add(witness)
        rest = [r for r in every if r not in kept]
        kept.update(self.rng.sample(rest, min(len(rest), n - len(kept))) if n > len(kept) else ())
        return [Keep(table, frozenset(kept))]

    def _witnessed(self, roots: Sequence[str]) -> tuple[str, int] | None:
        """A root table and a root row of it that a row that matters hangs from."""
        if not self.groups:
            return None
        table, group = self._group(self.groups)
        found = [(t, r) for t, r in self._root_of(table, self.rng.choice(group)).items() if t in roots]
        return self.rng.choice(found) if found else None

    def _copy(self) -> list[Edit]:
        columns = [(t, c) for t, c in self.focus.columns if c not in self.base.schema.tables[t].key]
        if not columns:
            return []
        table, column = self.rng.choice(columns)
        source, target = self._row(table), self._row(table)
        if source is None or target is None or source == target:
            return []
        return (
            [Copy(table, column, source, target)] if self.rng.random() < 0.5 else [Copy(table, column, target, source)]
        )

    def _null(self) -> list[Edit]:
        nullable = [(t, c) for t, c in self.focus.columns if self.base.schema.tables[t].columns[c].nullable]
        if not nullable:
            return []
        table, column = self.rng.choice(nullable)
        row = self._row(table)
        return [] if row is None else [Put(table, column, row, None)]

    def _drop(self) -> list[Edit]:
        picked = self._pick([t for t in self._tables(parents=False) if not self.base.schema.children(t)])
        return [] if picked is None else [Drop(picked[0], frozenset((picked[1],)))]

    def _tables(self, *, parents: bool) -> list[str]:
        """The queries' tables with rows, and (``parents``) the tables they refer to."""
        schema = self.base.schema
        found = list(self.focus.tables)
        if parents:
            for t in self.focus.tables:
                found += [fk.parent for fk in schema.parents(t) if fk.parent not in found]
        return [t for t in found if self.base.rows.get(t)]

    def _reaches(self, root: str) -> bool:
        """Whether deleting rows of ``root`` can reach a table the queries read."""
        schema = self.base.schema
        seen, frontier = {root}, [root]
        while frontier:
            t = frontier.pop()
            if t in self.focus.tables:
                return True
            for fk in schema.children(t):
                if fk.child not in seen:
                    seen.add(fk.child)
                    frontier.append(fk.child)
        return False
