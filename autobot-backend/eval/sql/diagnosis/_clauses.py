"""The clause-by-clause comparison: where two canonical queries differ, and what kind of mistake each
difference is.

The SELECTs of both queries are paired (the outermost with the outermost, then in breadth-first
order when both have as many; otherwise only the outermost), and each pair is walked in parallel,
nested SELECTs left to their own pair. WHERE and HAVING are compared as sets of conjuncts, so
``a AND b`` and ``b AND a`` do not differ; GROUP BY as a set of keys. Each difference is put in a
category by where it sits (:mod:`._categories`: the rules the methodology's "Why it is wrong" names, in
order). A join (added, left out, its type or its ON between columns; FROM and JOINs are one set of sources)
is ``join``, unless both queries read the same base tables, each joined to itself as often, and the sources
differ by a subquery, a CTE or a derived table (the same tables read through another shape: ``other``, which
any other finding or the rows' evidence outranks); the reference reads a table the candidate never reads
while the candidate reads one the reference never reads, or none at all: ``schema``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass

from sqlglot import exp

from eval.sql.diagnosis._canonical import parts, selects, text
from eval.sql.diagnosis._catalog import Catalog
from eval.sql.diagnosis._categories import category, change_category, linking, quoted
from eval.sql.diagnosis._keys import determined
from eval.sql.diagnosis._tree import diff
from eval.sql.model.diagnosis import Category

CLAUSE_NAMES = {
    "expressions": "SELECT",
    "where": "WHERE",
    "having": "HAVING",
    "group": "GROUP BY",
    "order": "ORDER BY",
    "limit": "LIMIT",
    "offset": "OFFSET",
    "joins": "JOIN",
    "from": "FROM",
    "from_": "FROM",
    "distinct": "DISTINCT",
}


@dataclass(frozen=True)
class Finding:
    """One difference between the two queries."""

    category: Category
    clause: str
    """``WHERE``, ``JOIN``, ``SELECT``, ... (the reference's clause name)."""
    reference: str
    """The reference's side as SQL; empty when the reference has nothing there."""
    candidate: str
    tables: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    """The tables each side's differing part names (a join's: the tables only that side reads)."""
    harmless: str = ""
    """Why the difference cannot change the result on this schema, when it cannot; such a difference is shown
    but never decides the primary."""


@dataclass(frozen=True)
class Context:
    dialect: str
    ordered: bool
    """The question's order is part of the answer."""
    column_order_any: bool
    """Columns in another order pass (``column_order: any``): a reordered projection is no mistake."""
    nested_paired: bool = False
    """Both queries have as many SELECTs, paired: a nested SELECT's differences are its own pair's."""
    same_tables: bool = False
    """Both queries read the same base tables (CTEs, derived tables and subqueries looked through)."""
    catalog: Catalog | None = None
    """The database's keys and types, when known: what makes a GROUP BY difference harmless."""


def compare(reference: exp.Expr, candidate: exp.Expr, ctx: Context) -> list[Finding]:
    """Every difference between the two canonical queries, categorised."""
    refs, cands = selects(reference), selects(candidate)
    if not refs or not cands:
        return [Finding(Category.OTHER, "query", text(reference, ctx.dialect), text(candidate, ctx.dialect))]
    paired = len(refs) == len(cands)
    pairs = list(zip(refs, cands)) if paired else [(refs[0], cands[0])]
    read_r, read_c = _tables(reference), _tables(candidate)
    # The same tables, each joined to itself as often (a self-join is a join; a table read again by a subquery
    # or another part of a set operation is a shape).
    same = read_r == read_c and _self_joins(reference) == _self_joins(candidate)
    ctx = dataclasses.replace(ctx, nested_paired=paired, same_tables=same)
    out: list[Finding] = []
    if read_r - read_c and (read_c - read_r or not read_c):  # another table, or none at all
        only_r, only_c = read_r - read_c, read_c - read_r
        said_r, said_c = ", ".join(sorted(only_r)), ", ".join(sorted(only_c))
        out.append(Finding(Category.SCHEMA, "FROM", said_r, said_c, (frozenset(only_r), frozenset(only_c))))
    for i, (r, c) in enumerate(pairs):
        out += _select_pair(r, c, ctx, outermost=i == 0)
    return out


def _select_pair(r: exp.Select, c: exp.Select, ctx: Context, *, outermost: bool) -> list[Finding]:
    if len(parts(r)) == 1 and len(parts(c)) == 1:
        # One source on each side: a column is that source's, whatever the source is called (a table, a CTE,
        # a derived table), so names are compared without their qualifier.
        r, c = _unqualified(r), _unqualified(c)
    out: list[Finding] = []
    keys = sorted(set(r.args) | set(c.args))
    for key in keys:
        if key in ("with", "with_"):
            continue  # a CTE's SELECT is a pair of its own
        a, b = r.args.get(key), c.args.get(key)
        if key in ("where", "having"):
            out += _conjuncts(key, a, b, ctx)
        elif key == "group":
            out += _keyset(key, a, b, ctx, r, c)
        elif key in ("joins", "from", "from_"):
            continue  # compared together below: which tables, how joined, on what
        elif key == "order" and outermost and not ctx.ordered and not r.args.get("limit") and not c.args.get("limit"):
            continue  # the rows are compared as a multiset: this ORDER BY decides nothing
        elif key == "expressions":
            out += _projection(a or [], b or [], ctx)
        else:
            out += [_finding(key, x, y, ctx) for x, y in diff(a, b, ctx.nested_paired)]
    return out + _joins(r, c, ctx)


def _finding(clause_key: str, a: exp.Expr | None, b: exp.Expr | None, ctx: Context) -> Finding:
    kind = category(clause_key, a, b)
    clause = CLAUSE_NAMES.get(clause_key, clause_key.upper())
    qa, qb = quoted(a, kind), quoted(b, kind)
    return Finding(kind, clause, _t(qa, ctx), _t(qb, ctx), (_named(qa), _named(qb)))


def _named(*nodes: object) -> frozenset[str]:
    """The tables the columns of ``nodes`` name."""
    return frozenset(
        c.table
        for n in nodes
        if isinstance(n, exp.Expr)
        for c in [n, *n.find_all(exp.Column)]
        if isinstance(c, exp.Column) and c.table
    )


def _t(node: object, ctx: Context) -> str:
    return text(node, ctx.dialect) if isinstance(node, exp.Expr) else ("" if node is None else str(node))


def _conjuncts(
    key: str, a: exp.Expr | list[exp.Expr] | None, b: exp.Expr | list[exp.Expr] | None, ctx: Context
) -> list[Finding]:
    """WHERE/HAVING/ON as sets of conjuncts: those only one side has, paired in order where both have some.
    In a join's ON, a conjunct between columns is the join's own condition (``join``), one against a
    literal a filter."""
    ra, rb = _split(a), _split(b)
    ta, tb = Counter(_masked(x, ctx) for x in ra), Counter(_masked(x, ctx) for x in rb)
    only_a = [x for x in ra if _take(ta, tb, _masked(x, ctx))]
    ta, tb = Counter(_masked(x, ctx) for x in ra), Counter(_masked(x, ctx) for x in rb)
    only_b = [x for x in rb if _take(tb, ta, _masked(x, ctx))]
    out: list[Finding] = []
    for x, y in zip(only_a, only_b):
        category = change_category(key, x, y, nested=ctx.nested_paired, default=Category.FILTER)
        out.append(Finding(category, CLAUSE_NAMES[key], _t(x, ctx), _t(y, ctx), (_named(x), _named(y))))
    n = min(len(only_a), len(only_b))
    out += [_finding(key, x, None, ctx) for x in only_a[n:]]
    out += [_finding(key, None, y, ctx) for y in only_b[n:]]
    sides = [(x, y) for x, y in zip(only_a, only_b)] + [(x, None) for x in only_a[n:]] + [(None, y) for y in only_b[n:]]
    if key == "joins":
        return [
            _as(f, Category.FILTER if any(s is not None and s.find(exp.Literal) for s in pair) else Category.JOIN)
            for f, pair in zip(out, sides)
        ]
    # In WHERE, an equality of two tables' columns on either side is a join written there (``FROM a, b WHERE ..``).
    return [_as(f, Category.JOIN) if any(map(linking, pair)) else f for f, pair in zip(out, sides)]


def _masked(node: exp.Expr, ctx: Context) -> str:
    """A conjunct's text, its nested SELECTs shown as ``(...)`` when they are compared as pairs of their own."""
    if not ctx.nested_paired or node.find(exp.Select) is None:
        return _t(node, ctx)
    copy = node.copy()
    for inner in list(copy.find_all(exp.Select)):
        if inner.parent is not None:
            inner.replace(exp.Placeholder(this="nested"))
    return _t(copy, ctx)


def _as(f: Finding, category: Category) -> Finding:
    return dataclasses.replace(f, category=category)


def _take(mine: Counter[str], theirs: Counter[str], key: str) -> bool:
    """Whether this conjunct is one the other side lacks (consuming one of the other side's copies)."""
    if theirs[key] > 0:
        theirs[key] -= 1
        return False
    return True


def _split(node: exp.Expr | list[exp.Expr] | None) -> list[exp.Expr]:
    if node is None:
        return []
    if isinstance(node, list):
        return [x for n in node for x in _split(n)]
    inner = node.this if isinstance(node, (exp.Where, exp.Having)) else node
    return list(inner.flatten()) if isinstance(inner, exp.And) else [inner]


def _keyset(
    key: str, a: exp.Expr | None, b: exp.Expr | None, ctx: Context, r: exp.Select, c: exp.Select
) -> list[Finding]:
    xa, xb = (a.expressions if a is not None else []), (b.expressions if b is not None else [])
    ka, kb = Counter(_t(x, ctx) for x in xa), Counter(_t(x, ctx) for x in xb)
    if ka == kb:
        return []
    missing, extra = ka - kb, kb - ka
    harmless = ""
    if ctx.catalog is not None and xa and xb and determined(xa, c, ctx.catalog) and determined(xb, r, ctx.catalog):
        harmless = "each side's GROUP BY keys determine the other's (through keys and join equalities)"
    return [
        Finding(
            Category.GROUPING, "GROUP BY", ", ".join(missing), ", ".join(extra), (_named(*xa), _named(*xb)), harmless
        )
    ]


def _joins(r: exp.Select, c: exp.Select, ctx: Context) -> list[Finding]:
    """The tables both SELECTs read (FROM and JOINs as one set: ``a JOIN b`` and ``b JOIN a`` do not differ),
    each outer join's type and ON by its table, and the inner joins' ON conjuncts as one set. An ON
    conjunct between columns is the join's condition (``join``); one against a literal a filter."""
    ra, rb = _read(r), _read(c)
    out: list[Finding] = []
    only_a, only_b = [k for k in ra if k not in rb], [k for k in rb if k not in ra]
    if only_a or only_b:
        said_a = " ".join(_t(ra[k][1], ctx) for k in only_a)
        said_b = " ".join(_t(rb[k][1], ctx) for k in only_b)
        # The same tables read through another shape (a subquery, a CTE, a derived table): a structure, not a join
        # mistake by itself; the rows and the other findings say whether it mattered.
        category = Category.OTHER if ctx.same_tables else Category.JOIN
        tables = (frozenset(only_a), frozenset(only_b))
        out.append(Finding(category, "FROM/JOIN", said_a, said_b, tables))
    inner_a: list[exp.Expr] = []
    inner_b: list[exp.Expr] = []
    for key in sorted(ra.keys() & rb.keys()):  # sorted: a set's order follows the hash seed
        (side_a, node_a), (side_b, node_b) = ra[key], rb[key]
        on_a, on_b = _on(node_a), _on(node_b)
        if side_a != side_b:
            out.append(Finding(Category.JOIN, "JOIN", _t(node_a, ctx), _t(node_b, ctx)))
        elif side_a in ("", "INNER", "CROSS"):
            inner_a += on_a
            inner_b += on_b
            continue
        else:
            out += _conjuncts("joins", on_a, on_b, ctx)
    for key in sorted(ra.keys() - rb.keys()):
        inner_a += _on(ra[key][1])
    for key in sorted(rb.keys() - ra.keys()):
        inner_b += _on(rb[key][1])
    if ra.keys() == rb.keys():
        out += _conjuncts("joins", inner_a, inner_b, ctx)
    return out


def _read(select: exp.Select) -> dict[str, tuple[str, exp.Expr]]:
    """What a SELECT reads directly: the table's name (or a derived table's alias) -> how it is joined
    (``""`` for FROM, ``INNER``, ``LEFT``, ...) and the FROM or JOIN node."""
    out: dict[str, tuple[str, exp.Expr]] = {}
    source = select.args.get("from") or select.args.get("from_")
    if source is not None:
        out[_joined(source)] = ("", source)
    for j in select.args.get("joins") or []:
        side = (j.args.get("side") or "").upper()
        kind = (j.args.get("kind") or "").upper()
        how = side or ("CROSS" if kind == "CROSS" else "INNER")
        key = _joined(j)
        while key in out:
            key += "'"  # the same table twice (a self-join): a name of its own
        out[key] = (how, j)
    return {k: (("INNER" if v[0] == "" else v[0]), v[1]) for k, v in out.items()}


def _base(node: exp.Expr) -> bool:
    """A FROM or JOIN that reads a base table (not a derived table, nor a CTE by its name)."""
    table = node.this
    if not isinstance(table, exp.Table):
        return False
    root = node.root()
    return table.name not in {c.alias_or_name for c in root.find_all(exp.CTE)}


def _on(node: exp.Expr) -> list[exp.Expr]:
    on = node.args.get("on") if isinstance(node, exp.Join) else None
    return _split(on)


def _joined(j: exp.Expr) -> str:
    """What a join reads: its table's name, or a derived table's alias (its SELECT is a pair of its own)."""
    t = j.this
    return t.name if isinstance(t, exp.Table) else (t.alias_or_name or t.sql())


def _projection(a: list[exp.Expr], b: list[exp.Expr], ctx: Context) -> list[Finding]:
    ta, tb = [_t(x, ctx) for x in a], [_t(x, ctx) for x in b]
    if ta == tb:
        return []
    if Counter(ta) == Counter(tb):
        if ctx.column_order_any:
            return []
        return [Finding(Category.PROJECTION, "SELECT", ", ".join(ta), ", ".join(tb), (_named(*a), _named(*b)))]
    if len(a) == len(b):
        return [_finding("expressions", x, y, ctx) for x, y in diff(a, b, ctx.nested_paired)]
    missing = [x for x in a if _t(x, ctx) not in tb]
    extra = [y for y in b if _t(y, ctx) not in ta]
    aggregate = any(x.find(exp.AggFunc) for x in missing + extra)
    category = Category.AGGREGATION if aggregate else Category.PROJECTION
    said_a, said_b = ", ".join(_t(x, ctx) for x in missing), ", ".join(_t(y, ctx) for y in extra)
    return [Finding(category, "SELECT", said_a, said_b, (_named(*missing), _named(*extra)))]


def _tables(tree: exp.Expr) -> set[str]:
    """The base tables a query reads (CTE names left out)."""
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    return {t.name for t in tree.find_all(exp.Table) if t.name and t.name not in ctes}


def _self_joins(tree: exp.Expr) -> dict[str, int]:
    """Each table's most copies read by one SELECT (FROM and JOINs), where it is more than one."""
    most: dict[str, int] = {}
    for select in tree.find_all(exp.Select):
        counts = Counter(p.this.name for p in parts(select) if isinstance(p.this, exp.Table))
        for table, n in counts.items():
            if n > 1:
                most[table] = max(most.get(table, 0), n)
    return most


def _unqualified(select: exp.Select) -> exp.Select:
    """A copy of a one-source SELECT with its own columns unqualified."""
    copy = select.copy()
    for column in copy.find_all(exp.Column):
        if column.table and column.find_ancestor(exp.Select) is copy:
            column.set("table", None)
    return copy
