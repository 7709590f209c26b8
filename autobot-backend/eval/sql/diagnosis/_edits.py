"""The edits of a candidate toward its reference: each takes one piece of the reference into a copy of the
candidate (a condition, its literal, a conjunct, DISTINCT, a join's type, ORDER BY and LIMIT, an aggregate,
GROUP BY, the SELECT list, WHERE or HAVING, the tables read), smallest first. A piece that names a table the
candidate's SELECT does not read brings the reference's join to it along, on the reference's own equalities,
only when they cover a key of that table (one row of it per candidate row at most): such a join serves the
edit and adds no rows of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlglot import exp

from eval.sql.diagnosis._canonical import parts, selects, text
from eval.sql.diagnosis._catalog import Catalog
from eval.sql.diagnosis._categories import change_category, linking
from eval.sql.diagnosis._edit_pieces import (
    atoms,
    clause_of,
    clip,
    conj,
    correspond,
    literals_of,
    names,
    outer,
    read_name,
    remove_conjunct,
    side,
)
from eval.sql.model.diagnosis import Category, earliest

MAX_PREDICATE_EDITS = 6
"""Edits of one condition (its literal, its operator, the column it tests) in a diagnosis at most."""


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


def edits(reference: exp.Expr, candidate: exp.Expr, dialect: str, catalog: Catalog | None) -> Iterator[Edit]:
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
        self._index = {id(n): i for i, n in enumerate(candidate.walk())}
        """Each node of the candidate -> its place in walk order, which a copy walks in too."""

    def _say(self, node: exp.Expr | None) -> str:
        return clip(text(node, self.dialect))

    def _copy(self) -> tuple[exp.Expr, list[exp.Expr]]:
        """A copy of the candidate, and its nodes in the original's walk order (to find a node in the copy)."""
        copy = self.candidate.copy()
        return copy, list(copy.walk())

    def _at(self, nodes: list[exp.Expr], original: exp.Expr) -> exp.Expr:
        return nodes[self._index[id(original)]]

    def _edit(self, copy: exp.Expr, category: Category, clause: str, what: str, whole: bool = True) -> Edit:
        # The copy is this edit's own: written without the copy sqlglot would make first.
        return Edit(category, clause, what, copy.sql(dialect=self.dialect, copy=False), whole)

    # conditions -------------------------------------------------------------------------------------------

    def predicates(self) -> Iterator[Edit]:
        """A condition of the candidate replaced by the reference's condition on the same column or the same
        value (only its operator and literal first, then whole), anywhere in the query; the likeliest pairs
        (a value written nearly alike, the same column) first."""
        ref_atoms, cand_atoms = atoms(self.reference), atoms(self.candidate)
        said = {id(a): text(a, self.dialect) for a in [*ref_atoms, *cand_atoms]}
        pairs = [
            (score, n, p, q)
            for n, (p, q) in enumerate((p, q) for p in cand_atoms for q in ref_atoms)
            if said[id(p)] != said[id(q)] and (score := correspond(p, q))
        ]
        for _, _, p, q in sorted(pairs, key=lambda x: (-x[0], x[1])):
            scope = p.find_ancestor(exp.Select)
            if not isinstance(scope, exp.Select):
                continue
            for literal_only in (True, False):
                literal = literals_of(q, p) if literal_only else None
                if literal_only and (literal is None or text(literal, self.dialect) == said[id(p)]):
                    continue
                copy, nodes = self._copy()
                if literal is not None:
                    mapped: exp.Expr | None = literal
                else:
                    target_scope = self._at(nodes, scope)
                    assert isinstance(target_scope, exp.Select)
                    mapped = self._mapped(q, target_scope, q)
                if mapped is None or (not literal_only and text(mapped, self.dialect) == said[id(p)]):
                    continue
                self._at(nodes, p).replace(mapped)
                what = f"{clause_of(p)}: the reference's `{self._say(q)}` for `{self._say(p)}`"
                key = clause_of(p).lower() if clause_of(p) != "JOIN" else "joins"
                category = change_category(key, p, mapped, nested=False, default=Category.FILTER)
                yield self._edit(copy, category, clause_of(p), what, whole=False)

    def conjuncts(self, i: int, j: int) -> Iterator[Edit]:
        """WHERE and HAVING conjuncts only one side has: each of the candidate's replaced by the reference's it
        pairs with (in order, as the comparison pairs them), then removed, then the reference's added."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        for key, clause in (("where", "WHERE"), ("having", "HAVING")):
            rc, cc = conj(r.args.get(key)), conj(c.args.get(key))
            r_texts, c_texts = [text(x, self.dialect) for x in rc], [text(x, self.dialect) for x in cc]
            only_c = [(x, t) for x, t in zip(cc, c_texts) if t not in r_texts]
            only_r = [(x, t) for x, t in zip(rc, r_texts) if t not in c_texts]
            for (y, ty), (x, tx) in zip(only_c, only_r):
                what = f"{clause}: the reference's `{clip(tx)}` for `{clip(ty)}`"
                yield from self._swapped(c, y, x, key, clause, what, Category.FILTER)
            for y, ty in only_c:
                copy, nodes = self._copy()
                remove_conjunct(self._at(nodes, y))
                category = Category.JOIN if linking(y) else Category.FILTER
                yield self._edit(copy, category, clause, f"{clause}: `{clip(ty)}` left out", whole=False)
            for x, tx in only_r:
                copy, nodes = self._copy()
                scope = self._at(nodes, c)
                assert isinstance(scope, exp.Select)
                mapped = self._mapped(x, scope, x)
                if mapped is not None:
                    (scope.where if key == "where" else scope.having)(mapped, copy=False)
                    category = Category.JOIN if linking(x) else Category.FILTER
                    what = f"{clause}: the reference's `{clip(tx)}` added"
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
        ref_sides = {read_name(p): side(p) for p in parts(r) if isinstance(p, exp.Join)}
        for part in parts(c):
            if not isinstance(part, exp.Join):
                continue
            name = read_name(part)
            if name in ref_sides and ref_sides[name] != side(part):
                copy, nodes = self._copy()
                target = self._at(nodes, part)
                target.set("side", ref_sides[name] or None)
                target.set("kind", None)
                what = f"JOIN {name}: {ref_sides[name] or 'INNER'} for {side(part) or 'INNER'}"
                yield self._edit(copy, Category.JOIN, "JOIN", what)

    def ordering(self, i: int, j: int) -> Iterator[Edit]:
        r, c = self.ref_selects[i], self.cand_selects[j]
        outer_r, outer_c = outer(self.reference, r), outer(self.candidate, c)
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
                what = f"SELECT: the reference's `{self._say(x)}` for `{self._say(y)}`"
                yield from self._swapped(c, y, x, "expressions", "SELECT", what, Category.AGGREGATION)

    def _swapped(
        self, c: exp.Select, y: exp.Expr, x: exp.Expr, key: str, clause: str, what: str, default: Category
    ) -> Iterator[Edit]:
        """The candidate with its node ``y`` (of its SELECT ``c``, in clause ``key``) replaced by the reference's
        ``x`` fitted to ``c``; its category is what the swap changes (``default`` when no rule names it)."""
        copy, nodes = self._copy()
        scope = self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        mapped = self._mapped(x, scope, x)
        if mapped is not None:
            self._at(nodes, y).replace(mapped)
            category = change_category(key, y, mapped, nested=False, default=default)
            yield self._edit(copy, category, clause, what, whole=False)

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
                change_category("expressions", y, m, default=Category.PROJECTION)
                for y, m in zip(c.expressions, mapped)
                if m is not None and text(y, self.dialect) != text(m, self.dialect)
            ]
            category = earliest(changed) if changed else category
        yield self._edit(copy, category, "SELECT", f"SELECT: the reference's `{clip(', '.join(ta))}`")

    def sources(self, i: int, j: int) -> Iterator[Edit]:
        """The tables the candidate's SELECT reads (FROM and JOINs) replaced by the reference's."""
        r, c = self.ref_selects[i], self.cand_selects[j]
        ra, ca = [read_name(p) for p in parts(r)], [read_name(p) for p in parts(c)]
        if sorted(ra) == sorted(ca) and all(side(p) == "" for p in parts(r) + parts(c) if isinstance(p, exp.Join)):
            return
        copy, nodes = self._copy()
        scope = self._at(nodes, c)
        assert isinstance(scope, exp.Select)
        _qualify_own(scope)
        theirs = parts(r)
        scope.set("from_", theirs[0].copy() if isinstance(theirs[0], exp.From) else None)
        scope.set("joins", [p.copy() for p in theirs[1:]])
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
        own_parts = parts(own)
        ref_table = read_name(own_parts[0]) if len(own_parts) == 1 else None
        for column in list(node.find_all(exp.Column)):
            nested = column.find_ancestor(exp.Select)
            if nested is not None and nested is not node:
                continue  # a nested SELECT of the piece reads its own tables
            table = column.table or ref_table
            if table and table not in names(scope) and not self._serve(scope, table, own):
                return None
            if table:
                column.set("table", exp.to_identifier(table))
            elif self.catalog is not None and len(owners := self.catalog.owners(column.name, names(scope))) == 1:
                column.set("table", exp.to_identifier(owners[0]))
        return node

    def _serve(self, scope: exp.Select, table: str, own: exp.Select) -> bool:
        """Join ``table`` to ``scope`` on the reference's own equalities between ``table`` and what ``scope``
        reads (``own``'s ON and WHERE conditions), when they cover a key of ``table``: one row of it per row of
        ``scope`` at most, so the join serves the edit and adds no rows of its own."""
        if self.catalog is None:
            return False
        read = names(scope)
        conditions = [c for p in parts(own) if isinstance(p, exp.Join) for c in conj(p.args.get("on"))]
        conditions += conj(own.args.get("where"))
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
    read = parts(scope)
    if len(read) != 1:
        return
    only = read_name(read[0])
    for column in scope.find_all(exp.Column):
        if not column.table and column.find_ancestor(exp.Select) is scope:
            column.set("table", exp.to_identifier(only))
