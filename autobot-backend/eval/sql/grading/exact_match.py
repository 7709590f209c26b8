"""Spider's exact-set-match (EM): the candidate's SQL against the reference's, component by component, by
the rules of Spider's official ``evaluation.py`` (``eval_partial_match`` and ``eval_exact_match``), values
ignored as its default. A second figure beside execution accuracy: it never changes a verdict.

Both queries are read into Spider's structure (:mod:`eval.sql.grading.spider_sql`); then, as the script:

* ``select``: the SELECT items as a multiset, aggregates included; ``select(no AGG)``: without the item's
  aggregate; column order does not matter;
* ``where``: the WHERE condition units as a multiset (operator, NOT, column; values dropped);
  ``where(no OP)``: their value units only;
* ``group(no Having)``: the GROUP BY columns as a multiset of column names *without their table* (the
  script splits ``table.column`` on the dot and compares the rest); ``group``: both have a GROUP BY, with
  the same columns in the same order and the same HAVING, or neither has one;
* ``order``: the same ORDER BY (keys in order, one direction) and both or neither with a LIMIT (its number
  is not compared), or neither has an ORDER BY;
* ``and/or``: the same set of connectors in WHERE;
* ``IUEN``: the same INTERSECT / UNION / EXCEPT present, each exactly matching the other's;
* ``keywords``: the same set of where, group, having, order, asc/desc, limit, except, union, intersect,
  or, not, in, like (the last four over the ON, WHERE and HAVING conditions);
* ``exact``: every component matches and the FROM clauses name the same tables (a multiset). The ON
  conditions are not compared (the published script compares none; an older one compared the first ON
  condition with its sides sorted), nor is the join type.

Where this differs from the script is written in docs/eval/benchmarks.md ("Exact-set-match (EM)").
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, cast

from sqlglot import exp

from eval.core.forked import Spread
from eval.sql.grading.schema_names import unknown_names
from eval.sql.grading.spider_grammar import unreadable
from eval.sql.grading.spider_schema import SpiderSchema
from eval.sql.grading.spider_sql import (
    Condition,
    CondUnit,
    NotReadable,
    SpiderQuery,
    empty_query,
    parse,
    read_query,
    with_queries,
)
from eval.sql.model.exact import COMPONENTS, EXTENDED, OFFICIAL, ExactMatch
from eval.sql.model.outcome import NO_ANSWER, SQLOutcome, Verdict
from services.readonly.parsed import MAX_TREES, statement_tree
from services.schema_context import SchemaContext

UNREADABLE = "Spider's parser cannot read the candidate's SQL"
"""How an official-mode note begins when Spider's parser cannot read the candidate's SQL."""
MISSING_NAMES = "the candidate's SQL names what the database does not have"
"""How a note begins when the SQL names a table or column the schema does not have (no match, either mode)."""


def _same(a: Iterable[Hashable], b: Iterable[Hashable]) -> bool:
    return Counter(a) == Counter(b)


def _units(condition: Condition) -> list[CondUnit]:
    return [u for u in condition if not isinstance(u, str)]


def _words(condition: Condition) -> list[str]:
    return [u for u in condition if isinstance(u, str)]


def _column_name(column: str) -> str:
    return column.split(".", 1)[1] if "." in column else column


def _keywords(q: SpiderQuery) -> set[str]:
    words = {
        name
        for name, present in (
            ("where", q.where),
            ("group", q.group),
            ("having", q.having),
            ("order", q.order),
            ("limit", q.limit),
            ("except", q.except_),
            ("union", q.union),
            ("intersect", q.intersect),
        )
        if present
    }
    if q.order:
        words.add(q.order[0])
    conditions = (q.join, q.where, q.having)
    units = [u for c in conditions for u in _units(c)]
    words |= {"or"} if any("or" in _words(c) for c in conditions) else set()
    words |= {"not"} if any(u[0] for u in units) else set()
    words |= {op for op in ("in", "like") if any(u[1] == op for u in units)}
    return words


def _nested(p: SpiderQuery | None, g: SpiderQuery | None) -> bool:
    return (p is None) == (g is None) and (p is None or g is None or matches(p, g)[0])


def components(p: SpiderQuery, g: SpiderQuery) -> dict[str, bool]:
    """Each of Spider's partial-match components of prediction ``p`` against gold ``g``."""
    both_grouped = bool(p.group) and bool(g.group)
    return {
        "select": _same(p.select, g.select),
        "select(no AGG)": _same((v for _, v in p.select), (v for _, v in g.select)),
        "where": _same(_units(p.where), _units(g.where)),
        "where(no OP)": _same((u[2] for u in _units(p.where)), (u[2] for u in _units(g.where))),
        "group(no Having)": _same((_column_name(c[1]) for c in p.group), (_column_name(c[1]) for c in g.group)),
        "group": (not p.group and not g.group)
        or (both_grouped and [c[1] for c in p.group] == [c[1] for c in g.group] and p.having == g.having),
        "order": (p.order is None and g.order is None)
        or (p.order is not None and p.order == g.order and p.limit == g.limit),
        "and/or": set(_words(p.where)) == set(_words(g.where)),
        "IUEN": all(_nested(a, b) for a, b in ((p.intersect, g.intersect), (p.except_, g.except_), (p.union, g.union))),
        "keywords": _keywords(p) == _keywords(g),
    }


def matches(p: SpiderQuery, g: SpiderQuery) -> tuple[bool, dict[str, bool], bool]:
    """(exact, the components, the FROM tables match) of ``p`` against ``g``."""
    parts = components(p, g)
    tables = _same(p.tables, g.tables)
    return all(parts.values()) and (tables or not g.tables), parts, tables


@dataclass(frozen=True)
class _Result:
    match: bool | None
    components: dict[str, bool] = dataclasses.field(default_factory=dict)
    tables: bool | None = None
    note: str = ""


def _compared(pred: SpiderQuery, gold: SpiderQuery) -> _Result:
    exact, parts, tables = matches(pred, gold)
    return _Result(exact, {name: parts[name] for name in COMPONENTS}, tables)


class _Parsed:
    """Each SQL text parsed by sqlglot once, and its unknown names found once, for both modes to read."""

    def __init__(self, dialect: str, schema: SpiderSchema | None):
        self.dialect, self.schema = dialect, schema
        self._trees: dict[str, tuple[exp.Query, dict[str, exp.Expression]] | NotReadable] = {}
        self._missing: dict[str, str | None] = {}

    def read(self, sql: str, script: bool = False) -> SpiderQuery:
        """``sql`` in Spider's structure (:func:`read_query`); :class:`NotReadable` as it raises it."""
        if sql not in self._trees:
            self._trees[sql] = _tree(sql, self.dialect)
        parsed = self._trees[sql]
        if isinstance(parsed, NotReadable):
            raise parsed.with_traceback(None)  # kept per process: each raise starts its own traceback
        return read_query(parsed[0], self.dialect, self.schema, script, parsed[1])

    def missing(self, sql: str) -> str | None:
        """The note for SQL (already read) naming what the schema lacks; None when it names nothing unknown."""
        if sql not in self._missing:
            parsed = self._trees[sql]
            assert not isinstance(parsed, NotReadable)
            unknown = unknown_names(cast(exp.Expression, parsed[0]), self.schema, self.dialect)
            more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
            self._missing[sql] = f"{MISSING_NAMES}: {', '.join(unknown[:3])}{more}" if unknown else None
        return self._missing[sql]


@lru_cache(maxsize=MAX_TREES)
def _tree(sql: str, dialect: str) -> tuple[exp.Query, dict[str, exp.Expression]] | NotReadable:
    """``sql`` parsed (:func:`parse`) with its WITH queries, once per process: a benchmark repeats its golds (532
    texts in Spider dev's 1,034) and many answers are their gold's text. Read-only, as every reader here is."""
    tree = _guard_tree(sql, dialect)
    if tree is None:
        try:
            tree = parse(sql, dialect)
        except NotReadable as exc:
            return exc
    return tree, with_queries(tree)


def _guard_tree(sql: str, dialect: str) -> exp.Query | None:
    """The guard's shared parse of ``sql`` (:mod:`services.readonly.parsed`; a run parses its references so before
    the self-check forks, and its answers when they run) where it is :func:`parse`'s: the same tokens through the
    same parser, which holds while no semicolon stands but a last one (``SELECT 1;;`` is one statement to the guard
    and a block to ``sqlglot.parse_one``). None where it may differ, does not parse, or is not a query: then
    :func:`parse` decides, and words its failure."""
    body = sql.rstrip()
    if ";" in body[:-1]:
        return None
    try:
        tree = statement_tree(sql, dialect)
    except Exception:
        return None
    return tree if isinstance(tree, exp.Query) else None


def _extended(candidate: str | None, reference: str, parsed: _Parsed, ran: bool) -> _Result:
    try:
        gold = parsed.read(reference)
    except NotReadable as exc:
        return _Result(None, note=f"the reference: {exc}")
    if not candidate or not candidate.strip():
        return _Result(False, note="no SQL")
    try:
        pred = parsed.read(candidate)
    except NotReadable as exc:
        return _Result(False if not ran else None, note=f"the candidate's SQL: {exc}")
    missing = parsed.missing(candidate)
    return _Result(False, note=missing) if missing else _compared(pred, gold)


def _official(candidate: str | None, reference: str, parsed: _Parsed) -> _Result:
    """As Spider's script scores it: a gold its parser cannot read stops the script (unmeasured here); a
    prediction it cannot read, or none, is compared as the empty query (not a match)."""
    schema = parsed.schema
    if schema is None or not schema.columns:
        return _Result(None, note="the database's schema could not be read, and Spider's parser needs it")
    stop = unreadable(reference, schema.columns, prediction=False)
    if stop is not None:
        return _Result(None, note=f"Spider's parser cannot read the reference ({stop}): its script would stop")
    try:
        gold = parsed.read(reference, script=True)
    except NotReadable as exc:
        return _Result(None, note=f"the reference: {exc}")
    if not candidate or not candidate.strip():
        return dataclasses.replace(_compared(empty_query(), gold), match=False, note="no SQL")
    stop = unreadable(candidate, schema.columns)
    if stop is not None:
        note = f"{UNREADABLE}: {stop}"
        return dataclasses.replace(_compared(empty_query(), gold), match=False, note=note)
    try:
        pred = parsed.read(candidate, script=True)
    except NotReadable as exc:
        return _Result(None, note=f"the candidate's SQL: {exc}")
    missing = parsed.missing(candidate)
    return _Result(False, note=missing) if missing else _compared(pred, gold)


def exact_match(
    candidate: str | None,
    reference: str,
    dialect: str,
    schema: SpiderSchema | None = None,
    ran: bool = True,
    mode: str = EXTENDED,
    measured: bool = True,
) -> ExactMatch:
    """The candidate's SQL against the reference under Spider's rules, in both modes; ``mode`` the one the
    result leads with.

    Extended: unmeasured (``match`` None) when sqlglot cannot read the reference, or cannot read a candidate
    whose SQL ran (sqlglot's limit, not the candidate's fault), or the answer is unmeasured (``measured``
    False); no SQL, or SQL that neither reads nor ran (``ran`` False), is not a match. Official: a candidate
    Spider's parser cannot read, or no SQL, is not a match; a reference it cannot read is unmeasured (the
    script would stop), and so is a database whose schema could not be read (the parser needs it). In both,
    SQL naming a table or column the schema does not have is not a match.
    """
    parsed = _Parsed(dialect, schema)
    official = _official(candidate, reference, parsed)
    extended = (
        _extended(candidate, reference, parsed, ran)
        if measured
        else _Result(None, note="the answer is unmeasured: extended EM counts measured answers only")
    )
    lead, other = (official, extended) if mode == OFFICIAL else (extended, official)
    return ExactMatch(lead.match, lead.components, lead.tables, lead.note, other.match, other.note, mode=mode)


class HasSchemas(Protocol):
    def bare_schema(self, db_url: str | None = None) -> SchemaContext: ...


def spider_schema(context: SchemaContext) -> SpiderSchema:
    """The columns and foreign keys of a database's schema, as column resolution needs them."""
    return SpiderSchema.of(
        (
            t.name,
            [c.name for c in t.columns],
            [(c, fk.ref_table, rc) for fk in t.foreign_keys for c, rc in zip(fk.columns, fk.ref_columns)],
        )
        for t in context.tables
    )


def spider_schemas(service: HasSchemas, urls: Mapping[str, str]) -> dict[str, SpiderSchema | None]:
    """Question id -> its database's schema (read once per URL, without sampled values, which EM never reads;
    the service caches it); None for a database whose schema cannot be read, whose columns are then resolved
    without it."""
    by_url: dict[str, SpiderSchema | None] = {}
    for url in set(urls.values()):
        try:
            by_url[url] = spider_schema(service.bare_schema(url))
        except Exception:  # the EM is a second figure: a schema it cannot read leaves the run as it is
            by_url[url] = None
    return {qid: by_url[url] for qid, url in urls.items()}


def wants_exact_match(rules: str | None, asked: str | None) -> bool:
    """A question's answer gets EM when its corpus asks (``exact_match: MODE``) or the run does."""
    return asked is not None or rules is not None


def run_mode(asked: str | None, rules: Iterable[str | None]) -> str:
    """The run's EM mode: ``--exact-match MODE`` when given, else ``extended`` when every question that asks
    for EM asks for that, else ``official`` (``exact_match: spider``, the key's first spelling, is official)."""
    if asked is not None:
        return asked
    asking = {r for r in rules if r is not None}
    return EXTENDED if asking == {EXTENDED} else OFFICIAL


def with_exact_match(
    outcomes: Sequence[SQLOutcome],
    one: Callable[[SQLOutcome], SQLOutcome],
    spread_for: Callable[[Sequence[SQLOutcome]], Spread] | None = None,
) -> list[SQLOutcome]:
    """Every outcome given its EM by ``one`` (:func:`exact_of`'s), but one that already carries its EM (given
    where it was graded), which is kept as it is. ``spread_for``: the forked processes to compute them in, given
    the outcomes left (each parses its questions' SQL; the order is kept)."""
    out = list(outcomes)
    todo = [i for i, o in enumerate(out) if o.exact is None]
    spread = spread_for([out[i] for i in todo]) if spread_for is not None else None
    if spread is None or spread.workers <= 1:
        done = [one(out[i]) for i in todo]
    else:
        done = spread.map(one, [out[i] for i in todo], chunk=max(1, len(todo) // (4 * spread.workers)))
    for i, o in zip(todo, done):
        out[i] = o
    return out


def exact_of(
    wanted: Callable[[str], bool],
    dialect: str,
    schemas: Mapping[str, SpiderSchema | None],
    mode: str = EXTENDED,
    unasked: Mapping[str, str | None] | None = None,
) -> Callable[[SQLOutcome], SQLOutcome]:
    """What gives one outcome its EM: an answerable outcome with a reference whose question ``wanted``, in both
    modes; ``schemas``: question id -> its database's schema (None: columns resolved without one). An
    unmeasured answer is unmeasured in extended EM and compared in official EM (EM needs no execution): with
    its SQL, or for a question that was not asked, the SQL ``unasked`` holds for it (a recorded answer); one
    with no SQL at all is no match when no answer was recorded, and unmeasured when it was never put to the
    candidate. It depends on nothing but the outcome, so a child that grades an answer may give it its EM
    there, where the answer's parse is already kept."""

    def one(o: SQLOutcome) -> SQLOutcome:
        if o.expect != "answer" or o.reference_sql is None or not wanted(o.question_id):
            return o
        ran = o.verdict in (Verdict.PASS, Verdict.WRONG)
        sql = o.sql if o.sql is not None else (unasked or {}).get(o.question_id)
        try:
            exact = exact_match(sql, o.reference_sql, dialect, schemas.get(o.question_id), ran, mode, o.measured)
        except RecursionError:  # a query nested past what a recursive walk reaches: EM is a second figure
            too_deep = "not compared: the SQL is nested too deeply to walk"
            exact = ExactMatch(None, {}, None, too_deep, None, mode=mode)
        if sql is None and not o.measured and o.reason != NO_ANSWER and o.verdict is Verdict.UNMEASURED:
            never = f"not asked ({o.reason}), so no SQL to compare"
            exact = (
                dataclasses.replace(exact, match=None, components={}, tables=None, note=never)
                if mode == OFFICIAL
                else dataclasses.replace(exact, other=None, other_note=never)
            )
        return dataclasses.replace(o, exact=exact)

    return one
