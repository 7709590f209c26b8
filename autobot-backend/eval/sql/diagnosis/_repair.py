"""Single edits of the candidate that the database can judge: the evidence that decides a diagnosis.

Each edit takes one piece of the reference into the candidate (a condition, its literal, DISTINCT, a join's
type, ORDER BY and LIMIT, an aggregate, GROUP BY, the SELECT list, WHERE, the tables read) and is run
through the read-only path. What it does to the candidate's result is the evidence:

* ``fixes``: the candidate's result becomes the reference's: this one change would make the answer right,
  so its category is the primary;
* ``no_effect``: the result does not change: the difference is harmless on this database, whatever it
  looks like, and never decides the primary;
* ``changes``: the result changes but is still wrong: the difference matters, and something else too;
* ``fails``: the edited query does not run (or could not be built): no evidence.

Edits are tried smallest first (a literal before a clause, a clause before the tables read), at most
:data:`MAX_EDITS` of them, and the search stops at the first that fixes. A piece of the reference that
names a table the candidate's SELECT does not read brings the reference's join to that table along, but
only a join on a key of that table (one row per candidate row at most): such a join serves the edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from rapidfuzz import fuzz
from sqlglot import exp

from eval.sql.diagnosis._canonical import _parts, selects, text
from eval.sql.diagnosis._catalog import Catalog
from eval.sql.diagnosis._clauses import change_category, linking
from eval.sql.model.diagnosis import Category, earliest

MAX_EDITS = 12
"""Edited queries one diagnosis runs at most."""
MAX_PREDICATE_EDITS = 6
"""Of them, edits of one condition (its literal, its operator, the column it tests)."""
SIMILAR = 80
"""rapidfuzz's ratio above which two literals are taken for the same value written differently."""
ATOMIC = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In, exp.Between, exp.Is)
"""Conditions an edit replaces whole."""


class Effect(Enum):
    FIXES = "fixes"
    NO_EFFECT = "no_effect"
    CHANGES = "changes"
    FAILS = "fails"


@dataclass(frozen=True)
class Edit:
    category: Category
    clause: str
    """The clause it changes, named as a finding names it (``WHERE``, ``GROUP BY``, ...)."""
    what: str
    """What it does, for the diagnosis line: ``WHERE: the reference's `x = 'cat'` for `x = 'Cat'```."""
    sql: str
    whole: bool = True
    """It replaces the whole clause (or keyword): its effect speaks for every difference in that clause. A
    condition or a literal alone speaks only for itself."""


@dataclass(frozen=True)
class Tried:
    edit: Edit
    effect: Effect


Rows = Sequence[Sequence[Any]]
Run = Callable[[str], tuple[Rows, bool] | None]
"""Runs one edited query read-only: its rows and whether they are the reference's; None when it did not run."""
Judge = Callable[[tuple[Rows, bool]], Effect]
"""What a result is to the diagnosis: ``fixes``, ``no_effect`` or ``changes``."""


def tried(
    reference: exp.Expr, candidate: exp.Expr, dialect: str, catalog: Catalog | None, run: Run, judge: Judge
) -> list[Tried]:
    """The edits of ``candidate`` toward ``reference``, run in order until one fixes (at most :data:`MAX_EDITS`)."""
    out: list[Tried] = []
    seen: set[str] = set()
    for edit in _edits(reference, candidate, dialect, catalog):
        if edit.sql in seen:
            continue
        seen.add(edit.sql)
        done = run(edit.sql)
        effect = Effect.FAILS if done is None else judge(done)
        out.append(Tried(edit, effect))
        if effect is Effect.FIXES or len(out) >= MAX_EDITS:
            break
    return out


# --- building edits ---------------------------------------------------------------------------------------


def _edits(reference: exp.Expr, candidate: exp.Expr, dialect: str, catalog: Catalog | None) -> Iterator[Edit]:
    refs, cands = selects(reference), selects(candidate)
    if not refs or not cands:
        return
    pairs = list(zip(range(len(refs)), range(len(cands)))) if len(refs) == len(cands) else [(0, 0)]
    builder = _Builder(reference, candidate, dialect, catalog)
    for n, edit in enumerate(builder.predicates()):
        if n >= MAX_PREDICATE_EDITS:
            break
        yield edit
    for i, j in pairs:
        yield from builder.conjuncts(i, j)
    for i, j in pairs:
        yield from builder.distinct(i, j)
    for i, j in pairs:
        yield from builder.join_types(i, j)
    yield from builder.ordering(0, 0)
    for i, j in pairs:
        yield from builder.aggregates(i, j)
    for i, j in pairs:
        yield from builder.clause(i, j, "group", Category.GROUPING, "GROUP BY")
    for i, j in pairs:
        yield from builder.projection(i, j)
    for i, j in pairs:
        yield from builder.clause(i, j, "where", Category.FILTER, "WHERE")
        yield from builder.clause(i, j, "having", Category.FILTER, "HAVING")
    for i, j in pairs:
        yield from builder.sources(i, j)


class _Builder:
    """Edited copies of the candidate, each one change taken from the reference."""

    def __init__(self, reference: exp.Expr, candidate: exp.Expr, dialect: str, catalog: Catalog | None) -> None:
        self.reference, self.candidate = reference, candidate
        self.dialect, self.catalog = dialect, catalog
        self.ref_selects, self.cand_selects = selects(reference), selects(candidate)
        self._walk = list(candidate.walk())

    def _say(self, node: exp.Expr | None) -> str:
        return _clip(text(node, self.dialect))

    def _copy(self) -> tuple[exp.Expr, list[exp.Expr]]:
        """A copy of the candidate, and its nodes in the original's walk order (to find a node in the copy)."""
        copy = self.candidate.copy()
        return copy, list(copy.walk())

    def _at(self, nodes: list[exp.Expr], original: exp.Expr) -> exp.Expr:
        return nodes[next(i for i, n in enumerate(self._walk) if n is original)]

    def _edit(self, copy: exp.Expr, category: Category, clause: str, what: str, whole: bool = True) -> Edit:
        return Edit(category, clause, what, copy.sql(dialect=self.dialect), whole)

    # conditions -------------------------------------------------------------------------------------------

    def predicates(self) -> Iterator[Edit]:
        """A condition of the candidate replaced by the reference's condition on the same column or the same
        value (only its operator and literal first, then whole), anywhere in the query; the likeliest pairs
        (a value written nearly alike, the same column) first."""
        ref_atoms = _atoms(self.reference)
        pairs = [
            (score, n, p, q)
            for n, (p, q) in enumerate((p, q) for p in _atoms(self.candidate) for q in ref_atoms)
            if (score := _correspond(p, q)) and text(p, self.dialect) != text(q, self.dialect)
        ]
        for _, _, p, q in sorted(pairs, key=lambda x: (-x[0], x[1])):
            p_text, scope = text(p, self.dialect), p.find_ancestor(exp.Select)
            if not isinstance(scope, exp.Select):
                continue
            for literal_only in (True, False):
                copy, nodes = self._copy()
                if literal_only:
                    mapped = _literals_of(q, p)
                else:
                    target_scope = self._at(nodes, scope)
                    assert isinstance(target_scope, exp.Select)
                    mapped = self._mapped(q, target_scope, q)
                if mapped is None or text(mapped, self.dialect) == p_text:
                    continue
                self._at(nodes, p).replace(mapped)
                what = f"{_clause_of(p)}: the reference's `{self._say(q)}` for `{self._say(p)}`"
                key = _clause_of(p).lower() if _clause_of(p) != "JOIN" else "joins"
                category = change_category(key, p, mapped, self.dialect, nested=False, default=Category.FILTER)
                yield self._edit(copy, category, _clause_of(p), what, whole=False)

    def conjuncts(self, i: int, j: int) -> Iterator[Edit]:
        """WHERE and HAVING conjuncts only one side has: each of the candidate's replaced by the reference's it
        pairs with (in order, as the comparison pairs them), then removed, then the reference's added."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        for key, clause in (("where", "WHERE"), ("having", "HAVING")):
            rc, cc = _conj(r.args.get(key)), _conj(c.args.get(key))
            r_texts, c_texts = [text(x, self.dialect) for x in rc], [text(x, self.dialect) for x in cc]
            only_c = [(x, t) for x, t in zip(cc, c_texts) if t not in r_texts]
            only_r = [(x, t) for x, t in zip(rc, r_texts) if t not in c_texts]
            for (y, ty), (x, tx) in zip(only_c, only_r):
                copy, nodes = self._copy()
                scope = self._at(nodes, c)
                assert isinstance(scope, exp.Select)
                mapped = self._mapped(x, scope, x)
                if mapped is not None:
                    self._at(nodes, y).replace(mapped)
                    category = change_category(key, y, mapped, self.dialect, nested=False, default=Category.FILTER)
                    what = f"{clause}: the reference's `{_clip(tx)}` for `{_clip(ty)}`"
                    yield self._edit(copy, category, clause, what, whole=False)
            for y, ty in only_c:
                copy, nodes = self._copy()
                _remove_conjunct(self._at(nodes, y))
                category = Category.JOIN if linking(y) else Category.FILTER
                yield self._edit(copy, category, clause, f"{clause}: `{_clip(ty)}` left out", whole=False)
            for x, tx in only_r:
                copy, nodes = self._copy()
                scope = self._at(nodes, c)
                assert isinstance(scope, exp.Select)
                mapped = self._mapped(x, scope, x)
                if mapped is not None:
                    (scope.where if key == "where" else scope.having)(mapped, copy=False)
                    category = Category.JOIN if linking(x) else Category.FILTER
                    what = f"{clause}: the reference's `{_clip(tx)}` added"
                    yield self._edit(copy, category, clause, what, whole=False)

    # keywords -----------------------------------------------------------------------------------------------

    def distinct(self, i: int, j: int) -> Iterator[Edit]:
        r, c = self.ref_selects[i], self.cand_selects[j]
        if bool(r.args.get("distinct")) != bool(c.args.get("distinct")):
            copy, nodes = self._copy()
            scope = self._at(nodes, c)
            scope.set("distinct", None if c.args.get("distinct") else exp.Distinct())
            what = "DISTINCT removed" if c.args.get("distinct") else "DISTINCT added"
            yield self._edit(copy, Category.DISTINCT, "DISTINCT", what)

    def join_types(self, i: int, j: int) -> Iterator[Edit]:
        r, c = self.ref_selects[i], self.cand_selects[j]
        ref_sides = {_read_name(p): _side(p) for p in _parts(r) if isinstance(p, exp.Join)}
        for part in _parts(c):
            if not isinstance(part, exp.Join):
                continue
            name = _read_name(part)
            if name in ref_sides and ref_sides[name] != _side(part):
                copy, nodes = self._copy()
                target = self._at(nodes, part)
                target.set("side", ref_sides[name] or None)
                target.set("kind", None)
                what = f"JOIN {name}: {ref_sides[name] or 'INNER'} for {_side(part) or 'INNER'}"
                yield self._edit(copy, Category.JOIN, "JOIN", what)

    def ordering(self, i: int, j: int) -> Iterator[Edit]:
        r, c = self.ref_selects[i], self.cand_selects[j]
        outer_r, outer_c = _outer(self.reference, r), _outer(self.candidate, c)
        keys = ("order", "limit", "offset")
        if all(text(outer_r.args.get(k), self.dialect) == text(outer_c.args.get(k), self.dialect) for k in keys):
            return
        copy, nodes = self._copy()
        holder, scope = self._at(nodes, outer_c), self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        for k in keys:
            node = outer_r.args.get(k)
            mapped = self._mapped(node, scope, r) if node is not None else None
            if node is not None and mapped is None:
                return
            holder.set(k, mapped)
        said = " ".join(t for k in keys if (t := self._say(outer_r.args.get(k)))) or "none"
        yield self._edit(copy, Category.ORDERING, "ORDER BY", f"ORDER BY/LIMIT: the reference's `{said}`")

    # clauses ------------------------------------------------------------------------------------------------

    def aggregates(self, i: int, j: int) -> Iterator[Edit]:
        """An aggregate of the SELECT list replaced by the reference's at the same place."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        for x, y in zip(r.expressions, c.expressions):
            if x.find(exp.AggFunc) and y.find(exp.AggFunc) and text(x, self.dialect) != text(y, self.dialect):
                copy, nodes = self._copy()
                scope = self._at(nodes, c)
                assert isinstance(scope, exp.Select)
                mapped = self._mapped(x, scope, x)
                if mapped is not None:
                    self._at(nodes, y).replace(mapped)
                    what = f"SELECT: the reference's `{self._say(x)}` for `{self._say(y)}`"
                    category = change_category("expressions", y, mapped, self.dialect, default=Category.AGGREGATION)
                    yield self._edit(copy, category, "SELECT", what, whole=False)

    def clause(self, i: int, j: int, key: str, category: Category, name: str) -> Iterator[Edit]:
        """The candidate's ``key`` clause replaced by the reference's (or removed, or added)."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        a, b = r.args.get(key), c.args.get(key)
        if text(a, self.dialect) == text(b, self.dialect):
            return
        copy, nodes = self._copy()
        scope = self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        mapped = self._mapped(a, scope, a) if a is not None else None
        if a is not None and mapped is None:
            return
        scope.set(key, mapped)
        said = f"the reference's `{self._say(a)}`" if a is not None else "none"
        yield self._edit(
            copy, category, name, f"{name}: {said} for `{self._say(b)}`" if b is not None else f"{name}: {said}"
        )

    def projection(self, i: int, j: int) -> Iterator[Edit]:
        r, c = self.ref_selects[i], self.cand_selects[j]
        ta = [text(x, self.dialect) for x in r.expressions]
        tb = [text(y, self.dialect) for y in c.expressions]
        if ta == tb:
            return
        copy, nodes = self._copy()
        scope = self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        mapped = [self._mapped(x, scope, x) for x in r.expressions]
        if any(m is None for m in mapped):
            return
        scope.set("expressions", mapped)
        aggregate = any(x.find(exp.AggFunc) for x in r.expressions) != any(y.find(exp.AggFunc) for y in c.expressions)
        category = Category.AGGREGATION if aggregate else Category.PROJECTION
        if len(mapped) == len(c.expressions) and not aggregate:
            changed = [
                change_category("expressions", y, m, self.dialect, default=Category.PROJECTION)
                for y, m in zip(c.expressions, mapped)
                if m is not None and text(y, self.dialect) != text(m, self.dialect)
            ]
            category = earliest(changed) if changed else category
        yield self._edit(copy, category, "SELECT", f"SELECT: the reference's `{_clip(', '.join(ta))}`")

    def sources(self, i: int, j: int) -> Iterator[Edit]:
        """The tables the candidate's SELECT reads (FROM and JOINs) replaced by the reference's."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        ra, ca = [_read_name(p) for p in _parts(r)], [_read_name(p) for p in _parts(c)]
        if sorted(ra) == sorted(ca) and all(_side(p) == "" for p in _parts(r) + _parts(c) if isinstance(p, exp.Join)):
            return
        copy, nodes = self._copy()
        scope = self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        _qualify_own(scope)
        parts = _parts(r)
        scope.set("from_", parts[0].copy() if isinstance(parts[0], exp.From) else None)
        scope.set("joins", [p.copy() for p in parts[1:]])
        swapped = bool(set(ra) - set(ca)) and bool(set(ca) - set(ra))
        category = Category.SCHEMA if swapped else Category.JOIN
        what = f"FROM/JOIN: the reference's tables ({', '.join(ra)}) for the candidate's ({', '.join(ca)})"
        yield self._edit(copy, category, "FROM/JOIN", what)

    # taking a piece of the reference into the candidate --------------------------------------------------------

    def _mapped(self, node: exp.Expr, scope: exp.Select, origin: exp.Expr) -> exp.Expr | None:
        """A copy of the reference's ``node`` (from the reference's SELECT ``origin`` or the one it sits in) that
        reads only what ``scope`` (a SELECT of the candidate's copy) reads; a table it names that ``scope``
        does not read is joined to ``scope`` as the reference joins it, when that join is on a key of the
        table. None when it cannot be made to fit."""
        own = origin if isinstance(origin, exp.Select) else origin.find_ancestor(exp.Select)
        if not isinstance(own, exp.Select):
            return None
        node = node.copy()
        own_parts = _parts(own)
        ref_table = _read_name(own_parts[0]) if len(own_parts) == 1 else None
        for column in list(node.find_all(exp.Column)):
            nested = column.find_ancestor(exp.Select)
            if nested is not None and nested is not node:
                continue  # a nested SELECT of the piece reads its own tables
            table = column.table or ref_table
            if table and table not in _names(scope) and not self._serve(scope, table, own):
                return None
            if table:
                column.set("table", exp.to_identifier(table))
            elif self.catalog is not None and len(owners := self.catalog.owners(column.name, _names(scope))) == 1:
                column.set("table", exp.to_identifier(owners[0]))
        return node

    def _serve(self, scope: exp.Select, table: str, own: exp.Select) -> bool:
        """Join ``table`` to ``scope`` on the reference's own equalities between ``table`` and what ``scope``
        reads (``own``'s ON and WHERE conditions), when they cover a key of ``table``: one row of it per row of
        ``scope`` at most, so the join serves the edit and adds no rows of its own."""
        if self.catalog is None:
            return False
        read = _names(scope)
        conditions = [c for p in _parts(own) if isinstance(p, exp.Join) for c in _conj(p.args.get("on"))]
        conditions += _conj(own.args.get("where"))
        link = [
            e
            for e in conditions
            if isinstance(e, exp.EQ)
            and isinstance(e.this, exp.Column)
            and isinstance(e.expression, exp.Column)
            and {e.this.table, e.expression.table} & {table}
            and ({e.this.table, e.expression.table} - {table}) <= read
            and e.this.table != e.expression.table
        ]
        keyed = {c.name for e in link for c in (e.this, e.expression) if c.table == table}
        if not link or not any(key <= keyed for key in self.catalog.keys(table)):
            return False
        _qualify_own(scope)
        scope.append("joins", exp.Join(this=exp.to_table(table), on=exp.and_(*(e.copy() for e in link))))
        return True


def _qualify_own(scope: exp.Select) -> None:
    """A one-source SELECT about to read more: its unqualified columns named by their table."""
    parts = _parts(scope)
    if len(parts) != 1:
        return
    only = _read_name(parts[0])
    for column in scope.find_all(exp.Column):
        if not column.table and column.find_ancestor(exp.Select) is scope:
            column.set("table", exp.to_identifier(only))


# --- reading ------------------------------------------------------------------------------------------------


def _atoms(tree: exp.Expr) -> list[exp.Expr]:
    """The query's conditions that an edit replaces whole, outermost ones only, in walk order."""
    out: list[exp.Expr] = []
    for node in tree.walk():
        if isinstance(node, ATOMIC) and not any(isinstance(a, ATOMIC) for a in _ancestors(node)):
            out.append(node)
    return out


def _ancestors(node: exp.Expr) -> Iterator[exp.Expr]:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        yield parent
        parent = parent.parent


def _columns(node: exp.Expr) -> set[str]:
    return {c.name for c in node.find_all(exp.Column) if c.find_ancestor(exp.Select) is node.find_ancestor(exp.Select)}


def _literal_values(node: exp.Expr) -> list[str]:
    return [str(lit.this) for lit in node.find_all(exp.Literal) if lit.is_string]


def _norm(value: str) -> str:
    return "".join(ch for ch in value.lower() if ch.isalnum())


def _correspond(p: exp.Expr, q: exp.Expr) -> int:
    """How much two conditions look like one condition written two ways: 2 for a value written alike or
    nearly so, 1 more for the same column; 0 for neither."""
    a, b = [_norm(v) for v in _literal_values(p)], [_norm(v) for v in _literal_values(q)]
    alike = any(x and y and (x == y or fuzz.ratio(x, y) >= SIMILAR) for x in a for y in b)
    return 2 * alike + bool(_columns(p) & _columns(q))


def _literals_of(q: exp.Expr, p: exp.Expr) -> exp.Expr | None:
    """``p`` with ``q``'s operator and literals (``p``'s column kept), when both compare one column with literals."""
    if (
        not isinstance(p, ATOMIC)
        or not isinstance(q, ATOMIC)
        or isinstance(p, exp.Between) != isinstance(q, exp.Between)
    ):
        return None
    column = p.this
    if not isinstance(column, exp.Column) or not isinstance(q.this, exp.Column):
        return None
    if any(isinstance(v, exp.Column) for v in q.find_all(exp.Column) if v is not q.this):
        return None  # q compares two columns: there is no literal to take
    out = q.copy()
    out.set("this", column.copy())
    return out


def _clause_of(node: exp.Expr) -> str:
    parent: exp.Expr | None = node
    while parent is not None and not isinstance(parent, exp.Select):
        if isinstance(parent, exp.Where):
            return "WHERE"
        if isinstance(parent, exp.Having):
            return "HAVING"
        if isinstance(parent, exp.Join):
            return "JOIN"
        parent = parent.parent
    return "WHERE"


def _conj(node: exp.Expr | None) -> list[exp.Expr]:
    if node is None:
        return []
    inner = node.this if isinstance(node, (exp.Where, exp.Having)) else node
    return list(inner.flatten()) if isinstance(inner, exp.And) else [inner]


def _remove_conjunct(node: exp.Expr) -> None:
    parent = node.parent
    if isinstance(parent, (exp.Where, exp.Having)):
        parent.pop()
        return
    if isinstance(parent, exp.And):
        other = parent.expression if parent.this is node else parent.this
        parent.replace(other.copy())
        return
    if isinstance(parent, exp.Paren):
        _remove_conjunct(parent)


def _side(part: exp.Expr) -> str:
    return str(part.args.get("side") or "").upper()


def _read_name(part: exp.Expr) -> str:
    t = part.this
    return t.alias_or_name if isinstance(t, exp.Table) else (t.alias_or_name if t is not None else "")


def _names(select: exp.Select) -> set[str]:
    return {_read_name(p) for p in _parts(select)}


def _outer(tree: exp.Expr, select: exp.Select) -> exp.Expr:
    """Where a query's ORDER BY and LIMIT sit: the SELECT, or the set operation it is the first part of."""
    return tree if tree.find(exp.Select) is select and not isinstance(tree, exp.Select) else select


def _clip(value: str, limit: int = 80) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"
