"""The shapes of a reference query that make it likely wrong, read from its SQL alone (sqlglot, qualified
against the database's schema): a join with no condition, and a column neither grouped nor aggregated in an
aggregate query (whose key the database may still be asked about, :mod:`eval.sql.oracle.suspect`). The
string comparisons are :mod:`eval.sql.oracle.suspect_literals`'.

Every reading is conservative: what cannot be resolved (a column whose table is unknown, a source that is
not a table, a condition in a subquery) is not flagged. A flag is a question for a person, never a verdict.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.schema import MappingSchema

from services.readonly.parsed import double_quoted_strings, statement_tree

Schema = Mapping[str, Mapping[str, str]]
"""Table -> column -> type, for qualifying the query's columns."""
Keys = Mapping[str, tuple[frozenset[str], ...]]
"""Table (lower case) -> its keys, each a set of columns (lower case) naming one row: the primary key (empty
when it has none) first, then each UNIQUE column set. A table the schema does not say is not a key here."""


@dataclass(frozen=True)
class Reading:
    """A query as the shape checks read it: its scopes, or why it could not be read."""

    scopes: tuple[Scope, ...]
    dialect: str
    star: bool = False
    """The outermost select returns ``*`` (qualifying expands it, so it is noted before)."""

    def outermost(self) -> tuple[Scope, exp.Select] | None:
        """The select whose columns the query returns (a set operation's first), with its scope."""
        if not self.scopes:
            return None
        node = self.scopes[-1].expression
        while isinstance(node, exp.SetOperation):
            node = node.this
        if isinstance(node, exp.Subquery):
            node = node.unnest()
        for scope in self.scopes:
            if scope.expression is node and isinstance(node, exp.Select):
                return scope, node
        return None


def read(sql: str, dialect: str, schema: Schema | None) -> Reading | None:
    """The query's scopes, its columns qualified by the schema where it can be; None when it does not parse."""
    try:
        parsed = statement_tree(sql, dialect)  # the run's one parse of it, shared: copied before it is changed
    except sqlglot.errors.SqlglotError:
        return None

    def unqualified() -> exp.Expr:
        tree = parsed.copy()
        if dialect == "sqlite" and schema:
            double_quoted_strings(tree, [str(c) for columns in schema.values() for c in columns])
        return tree

    tree = unqualified()
    star = _returns_star(tree)
    try:
        tree = qualify(
            tree,
            schema=_mapped(schema, dialect) if schema else None,
            dialect=dialect,
            validate_qualify_columns=False,
            quote_identifiers=False,
            identify=False,
        )
    except Exception:  # sqlglot raises more than its own errors on odd SQL: read it unqualified, as parsed
        tree = unqualified()  # qualify may have changed part of the tree before it raised
    try:
        scopes = tuple(traverse_scope(tree))
    except Exception:
        return None
    return Reading(scopes, dialect, star)


_MAPPED: dict[tuple[int, str], tuple[Schema, MappingSchema]] = {}


def _mapped(schema: Schema, dialect: str) -> MappingSchema:
    """``schema`` as sqlglot's optimizer reads it, built once per database and dialect (the suspect check reads one
    schema per database, kept): building it normalises every table and column name again, for every reference."""
    key = (id(schema), dialect)
    found = _MAPPED.get(key)
    if found is None or found[0] is not schema:
        found = _MAPPED[key] = (schema, MappingSchema(dict(schema), dialect=dialect))
    return found[1]


def _returns_star(tree: exp.Expr) -> bool:
    node = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    if isinstance(node, exp.Subquery):
        node = node.unnest()
    return isinstance(node, exp.Select) and any(
        isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in node.expressions
    )


def selects(reading: Reading) -> Iterator[tuple[Scope, exp.Select]]:
    for scope in reading.scopes:
        if isinstance(scope.expression, exp.Select):
            yield scope, scope.expression


def owned_by(node: exp.Expr, select: exp.Select) -> bool:
    """``node`` belongs to ``select`` itself, not to a subquery inside it."""
    return node.find_ancestor(exp.Select) is select


def _table_name(scope: Scope, alias: str) -> str | None:
    source = scope.sources.get(alias)
    return source.name if isinstance(source, exp.Table) else None


def _shown(scope: Scope, column: exp.Column) -> str:
    table = _table_name(scope, column.table) if column.table else None
    return f"{table}.{column.name}" if table else column.sql()


# --- joins ---------------------------------------------------------------------------------------------


def _single_row(scope: Scope, node: exp.Expr) -> bool:
    """A source that returns at most one row (an aggregate without GROUP BY, or LIMIT 1) multiplies nothing."""
    inner: exp.Expr | None = node.this if isinstance(node, exp.Subquery) else None
    if isinstance(node, exp.Table):
        source = scope.sources.get(node.alias_or_name)
        inner = source.expression if isinstance(source, Scope) else None
    if not isinstance(inner, exp.Select):
        return False
    limit = inner.args.get("limit")
    one = isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal) and limit.expression.this == "1"
    aggregate = any(owned_by(a, inner) for p in inner.expressions for a in p.find_all(exp.AggFunc))
    return one or (aggregate and not inner.args.get("group"))


def _plain(node: exp.Expr) -> bool:
    """A table or a derived table: not a table function (``json_each(t.x)``, ``UNNEST``) or a LATERAL
    subquery, which read the row they are joined to."""
    return isinstance(node, exp.Subquery) or (isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier))


def _conditioned(join: exp.Join) -> bool:
    on = join.args.get("on")
    real_on = on is not None and not (isinstance(on, exp.Boolean) and on.this is True)
    return real_on or bool(join.args.get("using")) or bool(join.args.get("method"))


class _Links:
    """Which of a FROM clause's sources are linked by a condition (union-find over their names)."""

    def __init__(self, names: list[str]) -> None:
        self.parent = {n: n for n in names}

    def root(self, name: str) -> str:
        while self.parent[name] != name:
            name = self.parent[name]
        return name

    def link(self, names: set[str]) -> None:
        roots = sorted({self.root(n) for n in names if n in self.parent})
        for r in roots[1:]:
            self.parent[r] = roots[0]


def _conjuncts(select: exp.Select) -> list[exp.Expr]:
    where = select.args.get("where")
    if where is None:
        return []
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def unjoined(reading: Reading) -> list[str]:
    """Each table joined with no ON, USING or WHERE condition linking it to the rest: every row pairs with every row."""
    found: list[str] = []
    for scope, select in selects(reading):
        joins = select.args.get("joins") or []
        from_ = select.args.get("from") or select.args.get("from_")
        if not joins or not isinstance(from_, exp.From):
            continue
        first = from_.this.alias_or_name
        links = _Links([first, *(j.this.alias_or_name for j in joins)])
        loose = []
        for join in joins:
            if _conditioned(join) or not _plain(join.this) or _single_row(scope, join.this):
                links.link({join.this.alias_or_name, first} | {c.table for c in join.find_all(exp.Column) if c.table})
            else:
                loose.append(join)
        for conjunct in _conjuncts(select):
            columns = [c for c in conjunct.find_all(exp.Column) if owned_by(c, select)]
            if len(columns) >= 2 and any(not c.table for c in columns):
                links.link(set(links.parent))  # cannot tell which tables it links: read as linking them all
            else:
                links.link({c.table for c in columns})
        for join in loose:
            if links.root(join.this.alias_or_name) != links.root(first):
                what = _table_name(scope, join.this.alias_or_name) or join.this.sql(reading.dialect)[:60]
                found.append(
                    f"`{what}` is joined to `{_table_name(scope, first) or first}` with no ON, USING or WHERE "
                    "condition linking them, so every row of one pairs with every row of the other"
                )
    return found


# --- columns neither grouped nor aggregated ------------------------------------------------------------

_MIN_MAX = (exp.Min, exp.Max)


def _aggregates(select: exp.Select) -> list[exp.Expr]:
    where = [*select.expressions, select.args.get("having")]
    return [
        a
        for part in where
        if part is not None
        for a in part.find_all(exp.AggFunc)
        if owned_by(a, select) and a.find_ancestor(exp.Window) is None
    ]


def _equalities(select: exp.Select) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Each ON or top-level WHERE ``a.x = b.y`` of two columns, as ((alias, column), (alias, column))."""
    conditions = [j.args["on"] for j in select.args.get("joins") or [] if j.args.get("on") is not None]
    pairs = []
    for condition in [*conditions, *_conjuncts(select)]:
        for eq in condition.flatten() if isinstance(condition, exp.And) else [condition]:
            if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                pairs.append(((eq.this.table, eq.this.name.lower()), (eq.expression.table, eq.expression.name.lower())))
    return pairs


def _determined(
    grouped: set[tuple[str, str]], select: exp.Select, scope: Scope, keys: Keys
) -> tuple[set[tuple[str, str]], set[str]]:
    """What one group holds one value of: the grouped columns, every column an ON or WHERE equality makes
    equal to one (``GROUP BY T1.stadium_id`` with ``ON T1.stadium_id = T2.stadium_id`` groups by ``T2``'s
    key as well), and every column of a source one of whose keys (primary or UNIQUE) it holds whole (one
    row of that source per group), followed to a fixed point: ``GROUP BY T1.id`` fixes ``T1.owner_id``,
    and with ``T1.owner_id = T2.id`` the whole of ``T2``. Returns the columns and the sources held whole."""
    pairs = _equalities(select)
    columns, whole = set(grouped), set[str]()
    changed = True
    while changed:
        changed = False
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                if (x in columns or x[0] in whole) and y not in columns:
                    columns.add(y)
                    changed = True
        for alias in {a for a, _ in columns} - whole:
            table = _table_name(scope, alias)
            held = {n for t, n in columns if t == alias}
            if table and any(key and key <= held for key in keys.get(table.lower(), ())):
                whole.add(alias)
                changed = True
    return columns, whole


@dataclass(frozen=True)
class Ungrouped:
    """A column of an aggregate query neither grouped, aggregated nor fixed by a key the schema declares."""

    detail: str
    table_sql: str
    """Its table as a probe names it ('' when not a base table)."""
    grouped: tuple[str, ...]
    """The columns of its own table the query groups by (or equates to grouped ones), as the probe writes
    them: when these hold no repeated value in the data, one row of the table is one group, and the column
    has one value per group on this database."""


# Complexity (radon E or F), kept as one function: one branch per SQL rule (output, HAVING, ORDER BY against GROUP BY,
# aggregates and keys), read in one walk of each SELECT.
def ungrouped(reading: Reading, keys: Keys) -> list[Ungrouped]:
    """Each column of an aggregate query's output, HAVING or ORDER BY that is neither grouped nor aggregated
    (nor of a source one of whose keys is grouped: one value per group then), naming it."""
    found: list[Ungrouped] = []
    for scope, select in selects(reading):
        group = select.args.get("group")
        aggregates = _aggregates(select)
        if not group and not aggregates:
            continue
        if reading.dialect == "sqlite" and sum(isinstance(a, _MIN_MAX) for a in aggregates) == 1:
            continue  # SQLite's documented rule: bare columns come from the row of the one MIN or MAX
        group_keys = list(group.expressions) if group else []
        plain = {(c.table, c.name.lower()) for c in group_keys if isinstance(c, exp.Column)}
        grouped, covered = _determined(plain, select, scope, keys)
        spelled: dict[tuple[str, str], str] | None = None  # written when a column is flagged (seldom)
        names = {name for _, name in grouped}
        aliases = {p.alias for p in select.expressions if isinstance(p, exp.Alias)}
        order = select.args.get("order")
        outputs = [p.this if isinstance(p, exp.Alias) else p for p in select.expressions]
        after = [select.args["having"]] if select.args.get("having") else []
        after += [o.this for o in order.expressions] if order else []
        seen: set[str] = set()
        for part in outputs + after:
            named = aliases if any(part is a for a in after) else set()  # HAVING, ORDER BY may name an output alias
            for column in part.find_all(exp.Column):
                if not owned_by(column, select) or column.is_star or column.find_ancestor(exp.AggFunc, exp.Window):
                    continue
                if not column.table and (column.name in named or column.name.lower() in names):
                    continue  # an output alias, or a grouped column it cannot tell apart
                if (column.table, column.name.lower()) in grouped or column.table in covered:
                    continue
                if grouped and not _keys_known(scope, column, keys):
                    continue  # the schema does not say its table's key: the grouped columns may determine it
                if _inside_key(column, part, group_keys):
                    continue
                shown = _shown(scope, column)
                if shown in seen:
                    continue
                seen.add(shown)
                source = scope.sources.get(column.table)
                table_sql = ""
                if isinstance(source, exp.Table):
                    bare = source.copy()
                    bare.set("alias", None)
                    table_sql = bare.sql(reading.dialect)
                if spelled is None:
                    spelled = _spelled(select, group_keys, reading.dialect)
                own = tuple(sorted(spelled[c] for c in grouped if c[0] == column.table and c in spelled))
                found.append(
                    Ungrouped(
                        f"`{shown}` is neither grouped nor aggregated in an aggregate query, so its value comes "
                        "from an arbitrary row of each group",
                        table_sql,
                        own,
                    )
                )
    return found


def _spelled(select: exp.Select, group_keys: list[exp.Expr], dialect: str) -> dict[tuple[str, str], str]:
    """(alias, column in lower case) -> the column's name as the query spells it, for each column of the
    GROUP BY and of the equalities that may make it grouped."""
    found: dict[tuple[str, str], str] = {}
    nodes = [c for k in group_keys for c in k.find_all(exp.Column)]
    conditions = [j.args["on"] for j in select.args.get("joins") or [] if j.args.get("on") is not None]
    for condition in [*conditions, *_conjuncts(select)]:
        nodes += [c for c in condition.find_all(exp.Column) if owned_by(c, select)]
    for c in nodes:
        found.setdefault((c.table, c.name.lower()), c.this.sql(dialect))
    return found


def _keys_known(scope: Scope, column: exp.Column, keys: Keys) -> bool:
    table = _table_name(scope, column.table) if column.table else None
    return table is not None and table.lower() in keys


def _inside_key(column: exp.Column, part: exp.Expr, keys: list[exp.Expr]) -> bool:
    """``column`` lies inside an expression the query groups by (``GROUP BY strftime('%Y', d)``)."""
    node: exp.Expr | None = column
    while node is not None:
        if any(node == k for k in keys):
            return True
        if node is part:
            return False
        node = node.parent
    return False
