"""Join paths along foreign keys: the tables a plan reads, shortest paths, the tree that connects a
query's tables, and which date column a table's rows are dated by.
"""

from __future__ import annotations

from services.embedded.index import Column, Edge, SchemaIndex
from services.embedded.plan import Filter, Plan


def plan_tables(p: Plan, index: SchemaIndex, filters: list[Filter] | None = None) -> list[str]:
    """Every table the plan reads, in the order it names them (the measured table first); ``filters``
    in place of the plan's own."""
    out: list[str] = []

    def add(t: str | None) -> None:
        if t and t not in out:
            out.append(t)

    for m in p.measures:
        add(m.table)
        if m.metric:
            for t in index.metrics[m.metric].tables:
                add(t)
        if m.swap:
            add(m.swap[1].table)
        for f in m.share or ():
            if f.kind == "exists":
                continue
            add(f.col.table)
            if f.kind == "colcmp":
                add(f.values[0].table)
        add(m.per)
    for d in p.dims:
        add(d.table)
    for f in p.filters if filters is None else filters:
        if f.kind == "exists":
            continue
        add(f.col.table)
        if f.kind == "colcmp":
            add(f.values[0].table)
    for h in p.having:
        add(h.measure.table)
        if h.measure.metric:
            for t in index.metrics[h.measure.metric].tables:
                add(t)
    if p.rank is not None and p.rank.column is not None:
        add(p.rank.column.table)
    for c in p.projection:
        add(c.table)
    for t in sorted(p.joins):
        add(t)
    if p.compare is not None and p.compare.date is not None:
        add(p.compare.date.table)
    return out


def path(index: SchemaIndex, start: str, goal: str | None, via: frozenset = frozenset()) -> list[Edge] | None:
    """The shortest foreign-key path from ``start`` to ``goal``; among equally short ones, the one
    through the most keys in ``via`` (the keys the question names: "the destination airport"), then
    through the fewest optional (nullable) keys: an enrollment belongs to its course's department
    for certain, to its student's declared major only when there is one. Deterministic."""
    if start == goal:
        return []
    best: list[Edge] | None = None
    depth = {start: 0}
    frontier: list[tuple[str, list[Edge]]] = [(start, [])]
    while frontier and best is None:
        nxt: list[tuple[str, list[Edge]]] = []
        for table, edges in frontier:
            for edge in index.edges.get(table, ()):
                if depth.get(edge.other, len(edges) + 1) < len(edges) + 1:
                    continue
                route = edges + [edge]
                if edge.other == goal:
                    if best is None or _cost(index, route, via) < _cost(index, best, via):
                        best = route
                    continue
                if edge.other not in depth:
                    depth[edge.other] = len(route)
                    nxt.append((edge.other, route))
                elif depth[edge.other] == len(route) and any(
                    _cost(index, route, via) < _cost(index, r, via) for t, r in nxt if t == edge.other
                ):
                    nxt = [(t, route if t == edge.other else r) for t, r in nxt]
        frontier = nxt
    return best


def _cost(index: SchemaIndex, route: list[Edge], via: frozenset) -> tuple[int, int]:
    named = sum(1 for e in route if (e.table, e.columns[0]) in via or (e.other, e.other_columns[0]) in via)
    return -named, _optional(index, route)


def _optional(index: SchemaIndex, route: list[Edge]) -> int:
    """How many of the route's keys may be NULL."""
    n = 0
    for edge in route:
        for table, cols in ((edge.table, edge.columns), (edge.other, edge.other_columns)):
            columns = index.tables[table].columns
            n += any(columns[c].nullable and columns[c].references for c in cols if c in columns)
    return n


def distance(index: SchemaIndex, a: str, b: str) -> int:
    """Number of joins between two tables; -1 when they are not connected."""
    route = path(index, a, b)
    return -1 if route is None else len(route)


def join_tree(index: SchemaIndex, root: str, tables: list[str], via: frozenset = frozenset()) -> list[Edge] | None:
    """Edges that connect ``root`` to every table, each new table by its shortest path to the tree."""
    in_tree = {root}
    edges: list[Edge] = []
    for table in tables:
        if table in in_tree:
            continue
        best: list[Edge] | None = None
        for member in sorted(in_tree, key=lambda t: (t != root, t)):
            route = path(index, member, table, via)
            if route is not None and (best is None or len(route) < len(best)):
                best = route
        if best is None:
            return None
        for edge in best:
            if edge.other not in in_tree:
                edges.append(edge)
                in_tree.add(edge.other)
    return edges


def primary_date(index: SchemaIndex, table: str) -> Column | None:
    """The date a table's rows are dated by: a non-NULL date column, preferring one named for the table."""
    dates = index.tables[table].dates()
    if not dates:
        return None
    stems = set(index.tables[table].stems)

    def rank(c: Column) -> tuple:
        named = bool(stems & set(c.stems))
        created = any(s in ("creat", "plac", "start", "signup", "regist", "join") for s in c.stems)
        return (c.nullable, not named, not created, list(index.tables[table].columns).index(c.name))

    return sorted(dates, key=rank)[0]


def default_date(index: SchemaIndex, table: str) -> Column | None:
    """The date column nearest to ``table`` along foreign keys, preferring the parent direction
    (an order line is dated by its order, not by its product)."""
    own = primary_date(index, table)
    if own is not None:
        return own
    seen = {table}
    frontier = [table]
    while frontier:
        nxt: list[str] = []
        for t in frontier:
            edges = sorted(
                index.edges.get(t, ()), key=lambda e: (not _points_up(index, e), not _event(index, e.other), e.other)
            )
            for edge in edges:
                if edge.other in seen:
                    continue
                seen.add(edge.other)
                found = primary_date(index, edge.other)
                if found is not None:
                    return found
                nxt.append(edge.other)
        frontier = nxt
    return None


def _event(index: SchemaIndex, table: str) -> bool:
    """A table whose rows point at other tables' rows (a session of a trainer): an event, whose date dates
    the rows under it, unlike an entity's (a member's joining date)."""
    return any(c.references not in (None, table) for c in index.tables[table].columns.values())


def _points_up(index: SchemaIndex, edge: Edge) -> bool:
    """True when ``edge.table`` holds the foreign key (so ``edge.other`` is its parent)."""
    cols = index.tables[edge.table].columns
    return all(cols[c].references == edge.other for c in edge.columns if c in cols)


def is_ancestor(index: SchemaIndex, parent: str, child: str) -> bool:
    """Whether ``child`` reaches ``parent`` by following foreign keys only (child -> parent)."""
    seen, frontier = {child}, [child]
    while frontier:
        nxt = []
        for t in frontier:
            for edge in index.edges.get(t, ()):
                if edge.other in seen or not _points_up(index, edge):
                    continue
                if edge.other == parent:
                    return True
                seen.add(edge.other)
                nxt.append(edge.other)
        frontier = nxt
    return False
