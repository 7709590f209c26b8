"""The per-schema index: what every table and column means, in stems, built once per schema.

Built from the live :class:`SchemaContext` only (names, types, comments, foreign keys, sampled
values) and cached by the context's identity and content, so a question costs a few dictionary
lookups, not a pass over the schema.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from services.embedded.comments import (
    comment_head,
    comment_pairs,
    comment_vocabulary,
    comment_words,
    content_stems,
    event_words,
    null_meaning,
    row_noun,
    value_glosses,
)
from services.embedded.lexicon import stem, stems_of, tokenize
from services.embedded.metrics import Metric, parse_metrics
from services.embedded.terms import defined_terms
from services.embedded.vocabulary import DATE_STEMS, GENERAL_STEMS, GENERAL_WORDS, GENERIC_COLUMN_STEMS
from services.schema_context import SchemaContext

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_LINE_HEADS = tuple(stem(w) for w in ("item", "line", "entry", "detail", "row"))
_LABEL_NAMES = ("name", "title", "full_name", "label", "display_name")


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    kind: str
    """``key`` (identifier), ``int``, ``number``, ``date``, ``year`` (an integer year), ``bool`` or ``text``."""
    nullable: bool
    primary_key: bool
    references: str | None
    """The table this column points to, when it is a foreign key."""
    stems: tuple[str, ...]
    comment_stems: frozenset[str]
    comment: str
    values: tuple[str, ...]
    values_complete: bool
    comment_words: frozenset[str] = frozenset()
    """Every word of the comment's first clause (general ones too), to tell same-named columns apart."""
    null_means: frozenset[str] = frozenset()
    """Stems the comment gives for the NULL state ("NULL while *employed*")."""
    set_means: frozenset[str] = frozenset()
    """Stems the comment gives for the non-NULL state ("NULL until *shipped*", "NULL when not *referred*")."""
    has_time: bool = False
    """A date column that also keeps the time of day (DATETIME, TIMESTAMP, TIME)."""

    @property
    def qualified(self) -> str:
        return f"{self.table}.{self.name}"

    @property
    def measurable(self) -> bool:
        return self.kind in ("int", "number")


@dataclass(frozen=True)
class Edge:
    """A foreign key as a join: ``table.columns = other.other_columns``."""

    table: str
    columns: tuple[str, ...]
    other: str
    other_columns: tuple[str, ...]


@dataclass
class Table:
    name: str
    stems: tuple[str, ...]
    columns: dict[str, Column]
    primary_key: tuple[str, ...]
    label: str | None
    comment_stems: frozenset[str] = frozenset()
    row_noun: str | None = None
    """The stem of what one row is, when the table's comment says ("One row per scheduled *departure*")."""

    def dates(self) -> list[Column]:
        return [c for c in self.columns.values() if c.kind == "date"]


@dataclass(frozen=True)
class Concept:
    """Something a span of the question can mean."""

    kind: str
    """``table``, ``column``, ``value`` or ``metric``."""
    table: str | None = None
    column: str | None = None
    value: str | None = None
    metric: str | None = None
    strength: float = 1.0
    """How directly the words name it: 1.0 for its full name, less for a part or its comment."""

    # What a meaning of a known kind always has, typed as such: a table, column or metric meaning, and
    # a value read from a column, name their table; a column or value meaning its column; a metric its
    # name. (Only a quoted literal that matches no value has none; readers check ``table`` first.)

    @property
    def table_name(self) -> str:
        return cast(str, self.table)

    @property
    def column_name(self) -> str:
        return cast(str, self.column)

    @property
    def metric_name(self) -> str:
        return cast(str, self.metric)


@dataclass
class SchemaIndex:
    dialect: str
    tables: dict[str, Table]
    metrics: dict[str, Metric]
    edges: dict[str, list[Edge]]
    phrases: dict[tuple[str, ...], list[Concept]] = field(default_factory=dict)
    """Stem sequences of names, parts of names, comments and values -> what they can mean."""
    value_words: dict[str, list[Concept]] = field(default_factory=dict)
    """First stem of every sampled value, for prefix and fuzzy matching."""
    max_phrase: int = 4
    price_pairs: list[tuple[str, tuple[str, str], tuple[str, str]]] = field(default_factory=list)
    """(metric, (table, column) it adds up, (table, column) of the same name one join away): the price a
    line was charged and the catalogue's price for it, which a discount is the difference of."""
    terms: dict[str, tuple[tuple, ...]] = field(default_factory=dict)
    """Terms a comment defines ("A flight is *delayed* when delay_minutes is more than 15"): the word ->
    conditions, each ``("cmp", table, column, op, number)`` or ``("eq", table, column, value)``."""
    vocabulary: frozenset[str] = frozenset()
    """Stems of every word of every comment: the words the schema's own documentation uses, in any
    inflection ("the flight *departs*", "the department is *housed* in")."""

    def column(self, table: str, name: str) -> Column:
        return self.tables[table].columns[name]

    def columns(self) -> list[Column]:
        return [c for t in self.tables.values() for c in t.columns.values()]


def _kind(type_name: str, name: str, pk: bool, fk: str | None, values: tuple[str, ...]) -> str:
    t = type_name.upper()
    words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    if pk or fk or (words and words[-1] in ("id", "uuid", "key")):
        return "key"
    if "BOOL" in t:
        return "bool"
    if any(k in t for k in ("DATE", "TIME")):
        return "date"
    if any(k in t for k in ("INT", "SERIAL")):
        return "year" if words and words[-1] in ("year", "yr") else "int"
    if any(k in t for k in ("NUM", "DEC", "REAL", "FLOA", "DOUB", "MONEY")):
        return "number"
    if values and all(_ISO_DATE.match(v) for v in values):
        return "date"
    return "text"


def _label(name: str, cols: dict[str, Column]) -> str | None:
    singular = stem(name)
    for cand in _LABEL_NAMES + (f"{singular}_name", f"{name}_name"):
        if cand in cols:
            return cand
    named = [c for c in cols.values() if c.kind == "text" and ("name" in c.name.lower() or "title" in c.name.lower())]
    if named:
        return named[0].name
    coded = [c for c in cols.values() if c.kind == "text" and c.name.lower() in ("code", f"{singular}_code")]
    return coded[0].name if coded else None  # an airport known by its code


@lru_cache(maxsize=32)
def _build(schema: SchemaContext) -> SchemaIndex:
    tables: dict[str, Table] = {}
    edges: dict[str, list[Edge]] = defaultdict(list)
    for info in schema.tables:
        fk_of = {fk.columns[0]: fk.ref_table for fk in info.foreign_keys if len(fk.columns) == 1}
        cols: dict[str, Column] = {}
        for c in info.columns:
            ref = fk_of.get(c.name)
            cols[c.name] = Column(
                table=info.name,
                name=c.name,
                kind=_kind(c.type, c.name, c.primary_key, ref, c.values),
                has_time="TIME" in (c.type or "").upper(),
                nullable=c.nullable,
                primary_key=c.primary_key,
                references=ref,
                stems=stems_of(c.name),
                comment_stems=content_stems(c.comment),
                comment=c.comment or "",
                values=tuple(c.values),
                values_complete=c.values_complete,
                comment_words=comment_words(c.comment),
                **null_meaning(c.comment),
            )
        pk = tuple(c.name for c in info.columns if c.primary_key)
        tables[info.name] = Table(
            info.name,
            stems_of(info.name),
            cols,
            pk,
            _label(info.name, cols),
            content_stems(info.comment),
            row_noun(info.comment) or next((row_noun(c.comment) for c in info.columns if c.primary_key), None),
        )
        for fk in info.foreign_keys:
            if fk.ref_table == info.name:
                continue  # self-references are not join paths between tables
            edges[info.name].append(Edge(info.name, fk.columns, fk.ref_table, fk.ref_columns))
            edges[fk.ref_table].append(Edge(fk.ref_table, fk.ref_columns, info.name, fk.columns))
    metrics = {m.name.lower(): m for m in parse_metrics(schema)}
    index = SchemaIndex(schema.dialect or "sqlite", tables, metrics, dict(edges), vocabulary=comment_vocabulary(schema))
    index.terms = defined_terms(index)
    _index_phrases(index)
    _index_price_pairs(index)
    _index_takings(index)
    return index


_PAID_STEMS = frozenset(stem(w) for w in ("price", "fare", "amount", "paid", "fee", "charge", "charged", "payment"))
_TAKINGS = tuple(stem(w) for w in ("revenue", "sales", "takings", "income", "turnover"))


def _index_takings(index: SchemaIndex) -> None:
    """With no metric for it, revenue is the one money column of the rows that are sold (a column of
    a table that points at others, named or described as a price paid): "ticket revenue" sums it."""
    if any(
        phrase[-1] in _TAKINGS and any(c.kind == "metric" for c in concepts)
        for phrase, concepts in index.phrases.items()
    ):
        return
    paid = [
        c
        for t in index.tables.values()
        if any(x.references for x in t.columns.values())
        for c in t.columns.values()
        if c.kind == "number" and not c.primary_key and (set(c.stems) | set(c.comment_stems)) & _PAID_STEMS
    ]
    if len(paid) == 1:
        for s in _TAKINGS:
            if (s,) not in index.phrases:
                _add(index, (s,), Concept("column", paid[0].table, paid[0].name, strength=0.75))


def _index_price_pairs(index: SchemaIndex) -> None:
    from sqlglot import exp

    for name, metric in index.metrics.items():
        if metric.argument is None:
            continue
        for c in metric.argument.find_all(exp.Column):
            own = index.tables.get(c.table)
            if own is None or c.name not in own.columns or not own.columns[c.name].measurable:
                continue
            for edge in index.edges.get(c.table, ()):
                other = index.tables[edge.other].columns.get(c.name)
                if other is not None and other.measurable:
                    index.price_pairs.append((name, (c.table, c.name), (edge.other, c.name)))


def _add(index: SchemaIndex, phrase: tuple[str, ...], concept: Concept) -> None:
    if not phrase:
        return
    bucket = index.phrases.setdefault(phrase, [])
    for i, old in enumerate(bucket):
        if (old.kind, old.table, old.column, old.value, old.metric) == (
            concept.kind,
            concept.table,
            concept.column,
            concept.value,
            concept.metric,
        ):
            if concept.strength > old.strength:
                bucket[i] = concept
            return
    bucket.append(concept)


def _index_phrases(index: SchemaIndex) -> None:
    for metric in index.metrics.values():
        _add(index, metric.stems, Concept("metric", table=metric.base_table, metric=metric.name.lower()))
        if len(metric.stems) > 1:
            # "revenue" for collected_revenue: the metric's head noun alone still names it
            _add(
                index,
                metric.stems[-1:],
                Concept("metric", table=metric.base_table, metric=metric.name.lower(), strength=0.8),
            )
    for table in index.tables.values():
        _add(index, table.stems, Concept("table", table=table.name))
        if len(table.stems) > 1:
            _add(index, table.stems[-1:], Concept("table", table=table.name, strength=0.7))
            if table.stems[-1] in _LINE_HEADS:
                # "order_items" is also spoken of as order lines, entries, details
                for head in _LINE_HEADS:
                    _add(index, table.stems[:-1] + (head,), Concept("table", table=table.name, strength=0.95))
                    _add(index, (head,), Concept("table", table=table.name, strength=0.85))
        for col in table.columns.values():
            _index_column(index, table, col)
        if table.row_noun and all(c.strength < 0.9 for c in index.phrases.get((table.row_noun,), [])):
            # "departures" for flights documented as "one row per scheduled departure"
            _add(index, (table.row_noun,), Concept("table", table=table.name, strength=0.9))
        if table.label:
            # "companies" for accounts labelled by company_name: the label's noun names the rows
            noun = tuple(s for s in stems_of(table.label) if s not in ("nam", "name", "titl", "label"))
            if noun and noun != table.stems:
                _add(index, noun, Concept("table", table=table.name, strength=0.85))


def _index_column(index: SchemaIndex, table: Table, col: Column) -> None:
    meaningful = tuple(s for s in col.stems if s not in GENERIC_COLUMN_STEMS)
    if col.kind == "key" and not col.primary_key and col.references:
        for s in sorted(
            s
            for s in col.null_means | col.set_means
            if s not in GENERAL_STEMS and stem(s) not in GENERAL_STEMS and s not in GENERAL_WORDS
        ):
            # "NULL while X is undeclared": "declared" tests the link's presence ("NULL when not given"
            # gives no meaning to "give me ...")
            _add(index, (s,), Concept("column", table.name, col.name, strength=0.7))
    if col.kind == "key" and not col.primary_key and col.references and meaningful:
        # A foreign key named after what it points at ("referred_by") still names a relationship.
        if set(meaningful) - set(index.tables[col.references].stems):
            _add(index, meaningful, Concept("column", table.name, col.name, strength=0.9))
            for s in meaningful:
                if s not in GENERAL_STEMS and s not in index.tables[col.references].stems:
                    _add(index, (s,), Concept("column", table.name, col.name, strength=0.8))
        return
    if col.kind == "key":
        return
    concept = lambda s: Concept("column", table.name, col.name, strength=s)  # noqa: E731
    _add(index, col.stems, concept(1.0))
    if meaningful and meaningful != col.stems:
        # "flight_number" of flights: the bare word "flights" is the table before it is this column
        _add(index, meaningful, concept(0.85 if meaningful == table.stems else 1.0))
    core = tuple(s for s in meaningful if s not in table.stems and not (col.kind == "date" and s in DATE_STEMS))
    if core and core != meaningful:
        _add(index, core, concept(0.9))
    for s in dict.fromkeys(meaningful):
        if s in GENERAL_STEMS and s not in DATE_STEMS:
            continue
        _add(index, (s,), concept(0.8 if s == meaningful[-1] else 0.5))
    head = comment_head(col.comment)
    for s in sorted(col.comment_stems - set(table.stems)):
        _add(index, (s,), concept(0.65 if s == head else 0.4))
    for s in sorted(col.null_means | col.set_means):
        _add(index, (s,), concept(0.7))  # the words the comment gives for NULL and non-NULL states
    if col.kind == "date":
        for s in sorted(event_words(col.comment) - set(table.stems)):
            _add(index, (s,), concept(0.7))
    for pair in comment_pairs(col.comment):
        if pair != col.stems and not set(pair) & set(table.stems):
            _add(index, pair, concept(0.75))
    for value in col.values:
        vstems = tuple(t.stem for t in tokenize(value) if t.kind in ("word", "number"))
        if not vstems:
            continue
        strength = 1.0 if col.values_complete else 0.95
        _add(index, vstems, Concept("value", table.name, col.name, value=value, strength=strength))
        low = tuple(t.low for t in tokenize(value) if t.kind in ("word", "number"))
        if low != vstems:
            _add(index, low, Concept("value", table.name, col.name, value=value, strength=strength))
        if "_" in value:  # a coded value ('no_show') is said in words: "no-shows", "no show"
            spoken = tuple(t.stem for t in tokenize(value.replace("_", " ")) if t.kind in ("word", "number"))
            if len(spoken) > 1:
                _add(index, spoken, Concept("value", table.name, col.name, value=value, strength=strength))
        index.value_words.setdefault(vstems[0], []).append(
            Concept("value", table.name, col.name, value=value, strength=strength)
        )
    for value, pair in value_glosses(col.comment, col.values):
        _add(index, pair, Concept("value", table.name, col.name, value=value, strength=0.85))


def index_for(schema: SchemaContext) -> SchemaIndex:
    """The cached index of ``schema`` (built on first use; contexts are frozen, so hashable)."""
    return _build(schema)


def clear_cache() -> None:
    """Forget every built index (benchmarks measure a cold build; tests check rebuilds agree)."""
    _build.cache_clear()
