"""The neighbours tried first: the likeliest to tell two near queries apart, one of each kind in turn.

Drawn at random, an edit that exposes a near miss is one of hundreds: the day after a period with its two small
orders and their customer alone, a top customer cloned into a namesake that ties, a month's orders doubled until
its total leads, a top customer's order moved to the day after the period. Each is built here from the rows
that matter (:class:`~eval.sql.counterexample.neighbours.Proposer` finds them), in a seeded order, so the
search tries them within its first few dozen neighbours; none is a rule for a case, each an edit of the issue's
kinds aimed at the rows either query singles out.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Protocol

from eval.sql.counterexample.constraints import outside
from eval.sql.counterexample.data import Base
from eval.sql.counterexample.edits import Clone, CloneEach, Drop, Edit, Keep, Put
from eval.sql.counterexample.reading import Focus
from eval.sql.counterexample.values import for_column
from eval.sql.fixtures.rules import Rule, Within

GATHERED = 12
"""The most rows of a group whose root rows a subset keeps together (a day's orders, a name's customers); twice
that for a day and the day after it."""
DOUBLED = 400
"""The most rows a planned neighbour doubles (a month's orders, not two years')."""
PLANNED = 20
"""How many planned neighbours of each rotation come before the drawn ones."""

Groups = Sequence[tuple[str, list[int]]]


class Matter(Protocol):
    """The rows that matter, by kind (:class:`~eval.sql.counterexample.neighbours.Proposer`'s)."""

    at_literal: list[tuple[str, list[int]]]
    shown: list[tuple[str, list[int]]]
    hanging: list[tuple[str, list[int]]]
    periods: list[tuple[str, list[int]]]

    def _root_of(self, table: str, row: int) -> dict[str, int]: ...


def planned(
    matter: Matter, base: Base, focus: Focus, rng: random.Random, rules: Sequence[Rule] = ()
) -> list[list[Edit]]:
    """At most :data:`PLANNED` neighbours, each kind's in a seeded order, the kinds taken in turn; ``rules``: the
    fixture's stated rules (a value a :class:`~eval.sql.fixtures.rules.Within` rule forbids is never placed)."""
    placed = _placed(matter, base, focus, rng, [r for r in rules if isinstance(r, Within)])
    kinds = [_gathered(matter), _cloned(matter.shown), _periods(matter.periods), placed]
    for kind in kinds:
        rng.shuffle(kind)
    turns = [edits for row in itertools.zip_longest(*kinds) for edits in row if edits is not None]
    return [list(t) for t in dict.fromkeys(map(tuple, turns))][:PLANNED]  # a neighbour planned twice, once


def _gathered(matter: Matter) -> list[list[Edit]]:
    """The tiny database of the root rows the rows at one literal's value hang from (a day's orders' customers)."""
    out: list[list[Edit]] = []
    for table, group in matter.at_literal:
        if len(group) <= 2 * GATHERED:
            hanging = [matter._root_of(table, r) for r in group]
            for root in sorted({t for found in hanging for t in found}):
                out.append([Keep(root, frozenset(found[root] for found in hanging if root in found))])
    return out


def _cloned(shown: Groups) -> list[list[Edit]]:
    """A row the answer shows, cloned with what refers to it: a namesake with the same total."""
    return [[Clone(table, r)] for table, group in shown if len(group) <= GATHERED for r in group[:2]]


def _periods(periods: Groups) -> list[list[Edit]]:
    """A literal's period emptied, and (when small enough) doubled."""
    out: list[list[Edit]] = [[Drop(t, frozenset(g))] for t, g in periods]
    return out + [[CloneEach(t, frozenset(g))] for t, g in periods if len(g) <= DOUBLED]


def _placed(matter: Matter, base: Base, focus: Focus, rng: random.Random, ranges: Sequence[Within]) -> list[list[Edit]]:
    """A row the answer hangs on (a top customer's order) placed at each value of a literal the fixture allows
    there (the day after the period, not the day after that), its other nullable values of the kind cleared."""
    out: list[list[Edit]] = []
    for target in focus.targets:
        mine = [g for t, g in matter.hanging if t == target.table]
        if not mine:
            continue
        table = base.schema.tables[target.table]
        kind = table.columns[target.column].kind
        example = next((v[target.column] for v in base.rows[target.table].values()), None)
        cleared = [c for c, col in enumerate(table.columns) if c != target.column and col.nullable and col.kind == kind]
        name = table.columns[target.column].name
        mine_ranges = [r for r in ranges if (r.table, r.column) == (target.table, name)]
        for value in target.values:
            written = for_column(value, kind, example)
            if any(outside(r, written) for r in mine_ranges):  # a neighbour the rules refuse: no turn spent on it
                continue
            row = rng.choice(rng.choice(mine))
            put = Put(target.table, target.column, row, written)
            out.append([put, *(Put(target.table, c, row, None) for c in cleared)])
    return out
