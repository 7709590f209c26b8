"""The reference's output columns against what its question asks for (kind ``output_columns`` of
:mod:`eval.sql.oracle.suspect`): read from the SQL, the schema and the question's words, no probe.

The question names a column by its words (:mod:`eval.sql.oracle.suspect_words`: ``staff number`` names
``Num_of_Staff``; a word of the column's own table may stand anywhere, so ``names ... of the songs`` names
``song.song_name``), an aggregate by its word (``average``, ``maximum``, ``number of``). Three findings,
each only on clear evidence, since most questions word their columns in ways no rule reads:

* **order**: the question lists two returned columns in one list (nothing but list words between them:
  ``the name, independence year and surface area``) in the order opposite to the reference's;
* **missing**: such a list names a column of a table the reference reads that it does not return
  (``the name, date and result of each battle`` while the reference returns name and date), and no
  returned column has those words;
* **unasked aggregate**: the reference returns an aggregate beside other columns that no word of the question
  asks for: ``COUNT(...)`` with no word of a count (``Which city has the most employees?`` answered with the
  city and its count), another aggregate with neither its word (``maximum``), its column's words, nor any word
  of a count or quantity (``How many people ...`` asks for a SUM).

What the question names only through a stored value the reference compares with (``... in 'Virginia'``)
is a filter, not a column it asks for: those words are never read as a column's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from eval.sql.oracle.suspect_words import Words, same_word, split_name

AGGREGATE_WORDS: Mapping[type[exp.Expr], frozenset[str]] = {
    exp.Avg: frozenset({"average", "avg", "mean"}),
    exp.Max: frozenset({"maximum", "max", "highest", "largest", "biggest", "greatest", "most", "top", "latest"}),
    exp.Min: frozenset({"minimum", "min", "lowest", "smallest", "least", "fewest", "earliest"}),
    exp.Sum: frozenset({"total", "sum", "overall", "combined", "altogether"}),
    exp.Count: frozenset({"number", "count", "many", "numbers", "counts", "amount", "total", "times", "often"}),
}
"""Words that name an aggregate; ``COUNT``'s are also the words that ask for a count at all."""
GLUE = frozenset(
    {",", "and", "the", "their", "its", "his", "her", "them", "as", "well", "also", "a", "an", "s", "both",
     "along", "with", "together", "plus", "respective", "corresponding", "what", "is", "are", "was", "were",
     "all", "different", "distinct", "then"}
)  # fmt: skip
"""Words that may stand between two items of one list of what the question asks for (``of`` may not: what
follows it is whose item it is, ``the name of the museum``)."""
LINKS = (",", "and", "plus")
"""One of these stands between two items of one list (``along with`` and ``as well as`` hold ``with``, ``as``:
read as ``and`` below)."""
PER_GROUP = frozenset({"per", "each", "every"})
"""Words that ask for a figure per group, an aggregate beside each group's name."""
NEAR = 4
"""Most words between an aggregate's word and its column's (``average, minimum, and maximum age``)."""


@dataclass(frozen=True)
class _Item:
    """One thing the question may name: a returned column (``index`` its position) or one it does not return."""

    shown: str
    index: int | None
    """Position among the reference's output columns; None for a column of its tables it does not return."""
    table: str
    column: str
    aggregate: type[exp.Expr] | None = None


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    item: _Item


def output_columns(scope: Scope, select: exp.Select, schema: Mapping[str, Sequence[str]], said: Words) -> list[str]:
    """The order, missing and unasked-count findings of ``select`` (the reference's outermost, or its set
    operation's first) against the question ``said``."""
    spelling = {t.lower(): (t, {c.lower(): c for c in cols}) for t, cols in schema.items()}
    items = _outputs(scope, select, spelling)
    if items is None or len(items) < 1:
        return []
    return [*_listed(scope, select, schema, said, items), *_unasked_aggregate(items, said)]


def _listed(
    scope: Scope, select: exp.Select, schema: Mapping[str, Sequence[str]], said: Words, items: list[_Item]
) -> list[str]:
    """The order and missing findings: none without a list in the question, nor unless two returned columns
    (an order) or all of them (a missing one) are named, which is known before the other columns are looked for."""
    if not any(t in LINKS for t in said.tokens) and not {"along", "together"} & set(said.tokens):
        return []
    blocked = _literal_words(select, said)
    returned = [m for item in items for m in _mentions(item, said, blocked)]
    named = {m.item.index for m in returned}
    if len(named) < 2 and len(named) < len(items):
        return []
    others = [m for item in _others(scope, schema, items) for m in _mentions(item, said, blocked)]
    found: list[str] = []
    for run in _lists(_longest([*returned, *others]), said, scope):
        found += _order(run)
        found += _missing(run, items)
    return found


def _outputs(scope: Scope, select: exp.Select, spelling: _Spelling) -> list[_Item] | None:
    """The returned columns as items; None when one is ``*`` (every column: nothing to compare)."""
    items = []
    for i, projection in enumerate(select.expressions):
        node = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and node.is_star):
            return None
        aggregate = next((k for k in AGGREGATE_WORDS if isinstance(node, k)), None)
        inner = node.this if aggregate else node
        if isinstance(inner, exp.Distinct):
            inner = inner.expressions[0] if inner.expressions else None
        if isinstance(inner, exp.Column) and not inner.is_star:
            table, column = _spelt(spelling, _table_name(scope, inner.table) or "", inner.name)
            items.append(_Item(_shown(node, table, column), i, table, column, aggregate))
        elif aggregate is exp.Count:
            items.append(_Item(node.sql(), i, "", "", aggregate))
        else:
            items.append(_Item(node.sql(), i, "", ""))  # an expression the question may word any way: never named
    return items


_Spelling = Mapping[str, tuple[str, Mapping[str, str]]]
"""Table in lower case -> (its name, its columns in lower case -> their names), as the schema spells them
(qualifying lowers the query's names, and ``LifeExpectancy`` is two words only as spelt)."""


def _spelt(spelling: _Spelling, table: str, column: str) -> tuple[str, str]:
    name, columns = spelling.get(table.lower(), (table, {}))
    return name, columns.get(column.lower(), column)


def _shown(node: exp.Expr, table: str, column: str) -> str:
    name = f"{table}.{column}" if table else column
    return f"{node.key.upper()}({name})" if isinstance(node, tuple(AGGREGATE_WORDS)) else name


def _table_name(scope: Scope, alias: str) -> str | None:
    source = scope.sources.get(alias) if alias else None
    if source is None and not alias:
        tables = [s for s in scope.sources.values() if isinstance(s, exp.Table)]
        source = tables[0] if len(scope.sources) == 1 and tables else None
    return source.name if isinstance(source, exp.Table) else None


def _others(scope: Scope, schema: Mapping[str, Sequence[str]], items: list[_Item]) -> Iterator[_Item]:
    """Every column of the tables the select reads that it does not return."""
    lower = {t.lower(): (t, cols) for t, cols in schema.items()}
    returned = {(i.table.lower(), i.column.lower()) for i in items}
    for source in scope.sources.values():
        if not isinstance(source, exp.Table) or source.name.lower() not in lower:
            continue
        table, columns = lower[source.name.lower()]
        for column in columns:
            if (table.lower(), column.lower()) not in returned:
                yield _Item(f"{table}.{column}", None, table, column)


def _literal_words(select: exp.Select, said: Words) -> frozenset[int]:
    """Question positions that spell a string the query compares with: a stored value, a filter's words."""
    blocked: set[int] = set()
    for literal in select.find_all(exp.Literal):
        if not literal.is_string:
            continue
        parts = [p.lower() for p in split_name(literal.this)] if literal.this.strip() else []
        for i in range(len(said.tokens) - len(parts) + 1):
            if parts and list(said.tokens[i : i + len(parts)]) == parts:
                blocked.update(range(i, i + len(parts)))
    return frozenset(blocked)


def _mentions(item: _Item, said: Words, blocked: frozenset[int]) -> list[_Mention]:
    """Where the question names ``item``: each span holding all its words (its table's words may stand
    anywhere), or, for an aggregate, its word with its column's words close after (its word alone for a
    count of rows)."""
    spans = _column_spans(item, said, blocked) if item.column else []
    if item.aggregate is None:
        return [_Mention(s, e, item) for s, e in spans]
    words = AGGREGATE_WORDS[item.aggregate]
    marks = [i for i, t in enumerate(said.tokens) if t in words and i not in blocked]
    if not item.column:
        return [_Mention(i, i, item) for i in marks]
    return [_Mention(i, e, item) for i in marks for s, e in spans if 0 < s - i <= NEAR]


def _column_spans(item: _Item, said: Words, blocked: frozenset[int]) -> list[tuple[int, int]]:
    table_words = split_name(item.table) if item.table else ()
    words = split_name(item.column)
    own = [w for w in words if not any(same_word(w, t) for t in table_words)] or list(words)
    hits = [[(a, b) for a, b in said.spans(w) if a not in blocked and b not in blocked] for w in own]
    if not all(hits):
        return []
    spans = []
    for first in hits[0]:
        chosen = [min(hits[k], key=lambda span: abs(span[0] - first[0])) for k in range(1, len(hits))]
        start, end = min(a for a, _ in [first, *chosen]), max(b for _, b in [first, *chosen])
        if end - start < len(own) + 1:  # the column's words together (``staff number``, ``number of staff``)
            spans.append((start, end))
    return sorted(set(spans))


def _longest(mentions: list[_Mention]) -> list[_Mention]:
    """The mentions no longer one covers (``staff number`` is one column, not a count's ``number``)."""

    def covered(m: _Mention) -> bool:
        return any(
            o is not m and o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
            for o in mentions
        )

    return sorted((m for m in mentions if not covered(m)), key=lambda m: (m.start, m.end))


def _lists(mentions: list[_Mention], said: Words, scope: Scope) -> list[list[_Mention]]:
    """Runs of mentions joined by ``,``, ``and``, ``along with``, ..., with nothing but list words (and the
    queried tables' words) between each two."""
    tables = [split_name(s.name) for s in scope.sources.values() if isinstance(s, exp.Table)]
    table_words = [w for words in tables for w in words]

    def glue(token: str) -> bool:
        return token in GLUE or any(same_word(token, w) for w in table_words)

    def linked(between: Sequence[str]) -> bool:
        pairs = set(itertools.pairwise(between))
        joined = any(t in LINKS for t in between) or bool(pairs & {("along", "with"), ("together", "with")})
        joined = joined or ("as", "well") in pairs
        return joined and all(glue(t) for t in between)

    runs: list[list[_Mention]] = []
    for m in mentions:
        end = max((o.end for o in runs[-1]), default=-1) if runs else -1
        if runs and (m.start <= end or linked(said.tokens[end + 1 : m.start])):
            runs[-1].append(m)  # overlapping mentions stay together: :func:`_clear` sets both aside
        else:
            runs.append([m])
    return runs


def _clear(run: list[_Mention]) -> list[_Mention]:
    """The run's mentions, each of one item named once in it, and no two items at one place."""
    at: dict[tuple[int, int], set[_Item]] = {}
    for m in run:
        at.setdefault((m.start, m.end), set()).add(m.item)
    counts: dict[_Item, int] = {}
    for m in run:
        counts[m.item] = counts.get(m.item, 0) + 1
    return [m for m in run if len(at[(m.start, m.end)]) == 1 and counts[m.item] == 1]


def _order(run: list[_Mention]) -> list[str]:
    named = [m for m in _clear(run) if m.item.index is not None]
    for a, b in itertools.pairwise(named):
        if a.item.index is not None and b.item.index is not None and a.item.index > b.item.index:
            listed = ", ".join(f"`{m.item.shown}`" for m in named)
            return [
                f"the question lists {listed} in this order, but the reference returns `{b.item.shown}` "
                f"(column {b.item.index + 1}) before `{a.item.shown}` (column {a.item.index + 1})"
            ]
    return []


def _missing(run: list[_Mention], items: list[_Item]) -> list[str]:
    """A column the list names that the reference does not return, when the list names every column it does
    return (once each): the list is then what the question asks for, all of it."""
    clear = _clear(run)
    returned = [m for m in clear if m.item.index is not None]
    if not returned or len(returned) != len(items):
        return []
    shown = ", ".join(f"`{m.item.shown}`" for m in returned)
    return [
        f"the question asks for `{m.item.shown}` in one list with {shown}, but the reference does not return it"
        for m in clear
        if m.item.index is None
    ]


def _unasked_aggregate(items: list[_Item], said: Words) -> list[str]:
    """An aggregate returned beside other columns that no word of the question asks for: not its own word
    (``maximum``), not its column's words anywhere, no word of a count or quantity at all (``how many
    people`` asks for a SUM), and no word of a figure per group (``Countries per continent?``)."""
    if len(items) < 2 or any(t in AGGREGATE_WORDS[exp.Count] or t in PER_GROUP for t in said.tokens):
        return []
    found = []
    for i in items:
        if i.aggregate is None or any(t in AGGREGATE_WORDS[i.aggregate] for t in said.tokens):
            continue
        if i.column and any(said.spans(w) for w in split_name(i.column)):
            continue
        what = "count" if i.aggregate is exp.Count else f"{i.aggregate.key.upper()} nor its column's words"
        found.append(f"the reference returns `{i.shown}` beside its other columns, but the question says no {what}")
    return found
