"""The string comparisons of a reference and what the database holds for them (:mod:`eval.sql.oracle.suspect`):
``unmatched_literal`` (no stored value is the literal, a near one is) and ``narrow_literal`` (one stored value
is the literal, while the question's word for it names more of them).

**narrow_literal.** ``GovernmentForm = 'Republic'`` for "How many countries are republics?", while the column
also stores ``Federal Republic`` and ``Islamic Republic``: the question's word names a class, the literal one
member. Flagged when all of these hold:

* the literal matches a stored value exactly (the unmatched check's own first probe), held by two rows or more
  (a category rows share; a value of one row is a name: ``'Plaza Museum'``);
* the question spells the literal's words, not between quotes (a quoted value is named exactly), as a common
  noun: in the plural (``republics``), or in lower case where the stored value has capitals in a question
  that starts with a capital (``a republic``; a question that ignores case tells nothing by it);
* the column stores other values holding the literal's words as whole words among others (``Federal
  Republic``; not ``Malay-English``, one word for one thing, nor ``Republican``), whose other words the
  question does not say (it would then name that value, not the class), and that the query does not compare
  the column with as well (``IN ('Republic', 'Federal Republic')`` already has it).

``=``, ``IN`` and ``!=`` (which keeps the other values out, or in) are read. One probe: ``SELECT col, COUNT(*)
FROM t WHERE INSTR(LOWER(col), 'lit') > 0 GROUP BY col LIMIT 50`` (sqlglot writes the engine's own function),
run only when the question's words qualify; the whole-word test is Python's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from eval.core.untrusted import clip
from eval.sql.oracle.suspect_shapes import Reading, owned_by, selects
from eval.sql.oracle.suspect_words import Words, is_plural_of
from services.readonly.execute import Execution

MAX_LITERALS = 20
"""String comparisons of one query whose literal is looked up in the database (two statements each at most)."""
NEAR_SHOWN = 3
"""Near or wider values a finding quotes (the near probe's LIMIT)."""
LITERAL_SHOWN = 80
"""Characters of a literal or a stored value a finding quotes."""
WIDER_PROBED = 50
"""Stored values holding the literal's text that the narrow probe reads (whole words are picked from these)."""

SHARED = 2
"""Rows that must hold the literal's value for it to be a class the question names (a category rows share)."""

Run = Callable[[str], Execution]
"""Runs one read-only statement on the database at hand."""


@dataclass(frozen=True)
class Comparison:
    """A string literal a column is compared with: ``col = 'x'``, ``col != 'x'``, ``col IN ('x', ...)`` or
    ``col LIKE 'x%'``."""

    table: str
    """The base table the column belongs to, for the reader."""
    table_sql: str
    """The same table as the probe names it (its schema too, in the query's dialect)."""
    alias: str
    """The table's name in the query (the column's qualifier)."""
    column: str
    literal: str
    like: bool
    listed: bool = False
    """One value of an ``IN (...)`` list (compared like ``=``)."""
    negated: bool = False
    """``!=`` or ``<>``: read by the narrow check only."""

    def what(self) -> str:
        literal = repr(clip(self.literal, LITERAL_SHOWN))
        if self.like:
            return f"LIKE {literal}"
        return f"IN (...): {literal}" if self.listed else f"{'!=' if self.negated else '='} {literal}"


def comparisons(reading: Reading) -> list[Comparison]:
    """Every ``column = 'literal'``, ``!=``, ``IN ('literal', ...)`` and ``LIKE 'pattern'`` whose column belongs
    to a table of the query (not a derived table), in query order, without repeats."""
    found: dict[Comparison, None] = {}
    for scope, select in selects(reading):
        tables = [a for a, s in scope.sources.items() if isinstance(s, exp.Table)]
        for node in select.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
            if not owned_by(node, select):
                continue
            pairs: list[tuple[exp.Expr, exp.Expr]] = []
            if isinstance(node, (exp.EQ, exp.NEQ)):
                pairs = [(node.this, node.expression), (node.expression, node.this)]
            elif isinstance(node, exp.Like):
                pairs = [(node.this, node.expression)]
            elif not node.args.get("query"):
                pairs = [(node.this, e) for e in node.expressions]
            for column, literal in pairs:
                if not (isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string):
                    continue
                alias = column.table or (tables[0] if len(tables) == 1 and len(scope.sources) == 1 else "")
                source = scope.sources.get(alias) if alias else None
                if not isinstance(source, exp.Table) or not literal.this.strip():
                    continue
                bare = source.copy()
                bare.set("alias", None)
                like, listed, negated = isinstance(node, exp.Like), isinstance(node, exp.In), isinstance(node, exp.NEQ)
                table_sql = bare.sql(reading.dialect)
                c = Comparison(source.name, table_sql, alias, column.name, literal.this, like, listed, negated)
                found[c] = None
    return list(found)


def _source(c: Comparison, dialect: str) -> tuple[exp.Column, str]:
    column = exp.column(c.column, table=c.alias)
    return column, f"FROM {c.table_sql} AS {exp.to_identifier(c.alias).sql(dialect)}"


def stored(c: Comparison, dialect: str, run: Run) -> bool | None:
    """A stored value is the literal, by the reference's own operator (``LIKE`` for a pattern, ``=`` else, so
    the column's collation and SQLite's affinity apply); None when the probe fails."""
    column, source = _source(c, dialect)
    literal = exp.Literal.string(c.literal)
    exact = exp.Like(this=column, expression=literal) if c.like else exp.EQ(this=column, expression=literal)
    got = run(f"SELECT 1 {source} WHERE {exact.sql(dialect)} LIMIT 1")
    return bool(got.rows) if got.ok else None


def near(c: Comparison, dialect: str, run: Run) -> list[str]:
    """Stored values equal to the literal up to case and spaces, or starting with it (at most
    :data:`NEAR_SHOWN`); empty when the probe fails."""
    column, source = _source(c, dialect)
    wanted = c.literal.strip().lower()
    norm = exp.Lower(this=exp.Trim(this=column.copy()))
    close: exp.Expr
    if c.like:
        close = exp.Like(this=norm, expression=exp.Literal.string(wanted + "%"))
    else:
        head = exp.Substring(this=norm, start=exp.Literal.number(1), length=exp.Literal.number(len(wanted)))
        close = exp.EQ(this=head, expression=exp.Literal.string(wanted))
    got = run(f"SELECT DISTINCT {column.sql(dialect)} {source} WHERE {close.sql(dialect)} LIMIT {NEAR_SHOWN}")
    return [str(row[0]) for row in got.rows if row[0] is not None] if got.ok else []


def unmatched_detail(c: Comparison, close: list[str]) -> str:
    shown = ", ".join(repr(clip(v, LITERAL_SHOWN)) for v in close)
    return (
        f"{c.table}.{c.column} {c.what()} matches no stored value, but "
        f"{shown} {'does' if len(close) == 1 else 'do'} up to case, spaces or as a prefix"
    )


# --- a literal narrower than the question's word -----------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+")


def class_word(c: Comparison, said: Words) -> str | None:
    """The question's words for ``c``'s literal when it uses them as a common noun (see the module docstring);
    None otherwise. Python only: decides whether the database is asked at all."""
    if c.like or not said.tokens:
        return None
    parts = [p.lower() for p in _WORD.findall(c.literal)]
    if not parts or any(p.isdigit() for p in parts):
        return None
    n = len(parts)
    for i in range(len(said.tokens) - n + 1):
        head, last = said.tokens[i : i + n - 1], said.tokens[i + n - 1]
        if list(head) != parts[:-1] or not (last == parts[-1] or is_plural_of(last, parts[-1])):
            continue
        phrase = " ".join(said.tokens[i : i + n])
        if any(phrase in q or c.literal.lower() in q for q in said.quoted):
            return None  # the question quotes the value: it names it exactly
        plural = last != parts[-1]
        raw = said.raw[i : i + n]
        lowered = any(ch.isupper() for ch in c.literal) and all(w == w.lower() for w in raw)
        if plural or (lowered and said.cased):
            return " ".join(raw)
    return None


def wider(c: Comparison, dialect: str, run: Run) -> dict[str, int]:
    """Stored values holding the literal's text, each with its rows (at most :data:`WIDER_PROBED` values);
    empty when the probe fails."""
    column, source = _source(c, dialect)
    holds = exp.GT(
        this=exp.StrPosition(this=exp.Lower(this=column.copy()), substr=exp.Literal.string(c.literal.lower())),
        expression=exp.Literal.number(0),
    )
    shown = column.sql(dialect)
    got = run(f"SELECT {shown}, COUNT(*) {source} WHERE {holds.sql(dialect)} GROUP BY {shown} LIMIT {WIDER_PROBED}")
    return {row[0]: int(row[1]) for row in got.rows if isinstance(row[0], str)} if got.ok else {}


def narrower(c: Comparison, values: dict[str, int], said: Words, compared: set[str]) -> list[str]:
    """The stored ``values`` the question's word also names: the literal's words whole among others the
    question does not say, and not themselves compared with (``compared``, lower case). None when the literal
    is stored in fewer than :data:`SHARED` rows: a value one row holds is a name, not a class."""
    if values.get(c.literal, 0) < SHARED:
        return []
    parts = c.literal.lower().split()
    out = []
    for v in sorted(values, key=lambda v: (-values[v], v)):  # the values most rows hold first
        words = v.lower().split()
        if v == c.literal or v.lower() in compared or len(words) <= len(parts):
            continue
        at = [i for i in range(len(words) - len(parts) + 1) if words[i : i + len(parts)] == parts]
        if not at:
            continue
        rest = words[: at[0]] + words[at[0] + len(parts) :]
        if any(w.strip(",.()").lower() in said.tokens for w in rest):
            continue  # the question names this value's other words: it asks for it, not for the class
        out.append(v)
    return out


def narrow_detail(c: Comparison, word: str, others: list[str]) -> str:
    shown = ", ".join(repr(clip(v, LITERAL_SHOWN)) for v in others[:NEAR_SHOWN])
    more = f" (and {len(others) - NEAR_SHOWN} more)" if len(others) > NEAR_SHOWN else ""
    left = "keeps" if c.negated else "leaves out"
    return (
        f"{c.table}.{c.column} {c.what()} matches one stored value, but the question's {word!r} also names "
        f"{shown}{more}, which the comparison {left}"
    )
