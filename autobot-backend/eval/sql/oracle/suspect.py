"""Suspect references (issue 25 point 5): shapes that make a reference query itself likely wrong.

A hand audit of wrong verdicts on Spider dev found about a quarter of them were the reference's fault, in
shapes a lint can see. The self-check runs these checks on every reference and ``also:`` alternative that
ran (on the first database of its question only); each finding names its kind and what it saw:

=========================  ===========================================================================
``unmatched_literal``      ``col = 'lit'``, ``col IN ('lit', ...)`` or ``col LIKE 'pat'`` matches no
                           stored value of its table, while a value equal up to case and surrounding
                           spaces, or starting with the literal, exists (``'north america'`` where the
                           data says ``'North America'``). Asks the database: per literal, one
                           ``LIMIT 1`` probe for an exact match (the reference's own operator, so its
                           collation) and, when there is none, one ``LIMIT 3`` probe for near ones;
                           at most :data:`MAX_LITERALS` literals per query.
``narrow_literal``         ``col = 'lit'`` (or ``IN``, ``!=``) matches one stored value, while the
                           question uses the literal's word as a common noun that other stored values
                           of the column hold too (``= 'Republic'`` for "republics", the column also
                           storing ``'Federal Republic'``): :mod:`eval.sql.oracle.suspect_literals`.
``join_without_condition`` a comma join, ``CROSS JOIN`` or ``JOIN`` without ON/USING whose table no
                           WHERE conjunct links to the others (a source of one row, an aggregate
                           without GROUP BY or ``LIMIT 1``, multiplies nothing and is not flagged).
``ungrouped_column``       a column of an aggregate query's output, HAVING or ORDER BY neither grouped
                           nor aggregated (SQLite returns an arbitrary row's value), unless a key of
                           its table (primary or UNIQUE) is grouped, directly or through join
                           equalities (one value per group: PostgreSQL's rule), the columns of its
                           table the query groups by hold no repeated value in the data (one probe),
                           or, on SQLite, the query has exactly one MIN or MAX (bare columns then come
                           from that row, SQLite's documented rule).
``output_columns``         the question lists the returned columns in another order, or lists one
                           more the reference does not return (:mod:`eval.sql.oracle.suspect_columns`).
``limit_tie``              the self-check's tie lint (:mod:`eval.sql.oracle.lints`) found LIMIT cutting
                           inside a tie: the grader accepts any of the tied rows, but a question asking
                           for "the" one may mean all of them. Read from the self-check's ties, never
                           probed again.
=========================  ===========================================================================

A suspect reference is not an oracle defect: its question is graded as usual, and every output shows the
flag beside the verdict and in a section of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import ReadOnlyDatabase
from eval.sql.model.findings import SuspectReference
from eval.sql.oracle.alternatives import alternative
from eval.sql.oracle.lints import ordering_plan
from eval.sql.oracle.suspect_columns import output_columns
from eval.sql.oracle.suspect_literals import (
    LITERAL_SHOWN,
    MAX_LITERALS,
    NEAR_SHOWN,
    Comparison,
    Run,
    class_word,
    comparisons,
    narrow_detail,
    narrower,
    near,
    stored,
    unmatched_detail,
    wider,
)
from eval.sql.oracle.suspect_shapes import Keys, Reading, Schema, Ungrouped, read, ungrouped, unjoined
from eval.sql.oracle.suspect_words import words
from eval.sql.rows import Ties
from services.readonly.execute import Execution

__all__ = ["KINDS", "LITERAL_SHOWN", "MAX_LITERALS", "NEAR_SHOWN", "Suspect", "SuspectCheck", "by_kind"]

UNMATCHED_LITERAL = "unmatched_literal"
NARROW_LITERAL = "narrow_literal"
JOIN_WITHOUT_CONDITION = "join_without_condition"
UNGROUPED_COLUMN = "ungrouped_column"
OUTPUT_COLUMNS = "output_columns"
LIMIT_TIE = "limit_tie"
KINDS = (UNMATCHED_LITERAL, NARROW_LITERAL, JOIN_WITHOUT_CONDITION, UNGROUPED_COLUMN, OUTPUT_COLUMNS, LIMIT_TIE)
"""Every kind, in the order outputs list them."""


Suspect = SuspectReference
"""One finding: the run model's value, so what the check finds is what a run keeps."""


@runtime_checkable
class _Inspectable(Protocol):
    def structure(self, db_url: str) -> list[Any]: ...


@runtime_checkable
class _Keyed(Protocol):
    def unique_keys(self, db_url: str) -> dict[str, tuple[tuple[str, ...], ...]]: ...


@dataclass(frozen=True)
class _Read:
    """One query on one database as the checks read it, and what needs no question."""

    reading: Reading | None
    schema: Schema
    found: tuple[tuple[str, str], ...]
    exact: frozenset[Comparison]
    """The comparisons whose literal a stored value is (asked once, for both literal kinds)."""
    compared: tuple[Comparison, ...] = ()
    """The query's string comparisons (read once, for both literal kinds)."""


class SuspectCheck:
    """The checks of one self-check: each database's schema is read once (where the database can say it)."""

    def __init__(self, database: ReadOnlyDatabase) -> None:
        self.database = database
        self._schemas: dict[str, tuple[Schema, Keys]] = {}
        self._keyed: dict[str, Keys] = {}
        self._read: dict[tuple[str, str, str], _Read] = {}
        self._asked: dict[tuple[str, str, str, str], tuple[tuple[str, str], ...]] = {}
        self._wider: dict[tuple[str, Comparison], dict[str, int]] = {}
        self._equal: dict[tuple[str, Comparison], bool | None] = {}

    def question(
        self,
        q: Question,
        url: str,
        dialect: str,
        ties: Sequence[Ties | None],
        also_ties: Sequence[Sequence[Ties | None]] = (),
    ) -> list[Suspect]:
        """Every finding of ``q``'s reference and alternatives on ``url`` (its first database), ``ties`` being
        what the self-check learned of the reference's order on each rotation (``also_ties``: each alternative's)."""
        aligned = len(also_ties) == len(q.also)  # the self-check keeps the ties of the alternatives that ran only
        forms = [("", q, ties)]
        forms += [
            (f"alternative {k + 2} (also[{k}]): ", alternative(q, alt), also_ties[k] if aligned else ())
            for k, alt in enumerate(q.also)
        ]
        found: list[Suspect] = []
        for prefix, form, form_ties in forms:
            try:
                sql = form.reference_sql(dialect) or ""
                read = self.query(sql, url, dialect, form_ties, question=q.question)
            except TranspileError:
                continue  # the self-check reports it
            except RecursionError:
                continue  # a reference nested past a recursive walk: not read (the checks are advice, not grades)
            found += [Suspect(q.id, kind, prefix + detail) for kind, detail in read]
        return found

    def query(
        self, sql: str, url: str, dialect: str, ties: Sequence[Ties | None] = (), *, question: str = ""
    ) -> list[tuple[str, str]]:
        """(kind, detail) of every finding of one query on one database; the kinds that compare the query with
        its question (``narrow_literal``, ``output_columns``) need ``question``."""
        done = self._shapes(sql, url, dialect)
        found = list(done.found)
        if question.strip() and done.reading is not None:
            key = (sql, url, dialect, question)
            if key not in self._asked:
                self._asked[key] = self._against(done, question, url)
            found += self._asked[key]
        tie = limit_tie(sql, dialect, ties)
        if tie is not None:
            found.append((LIMIT_TIE, tie))
        return sorted(found, key=lambda f: KINDS.index(f[0]))  # stable: each kind's findings in query order

    def _shapes(self, sql: str, url: str, dialect: str) -> _Read:
        """The findings of the query's shape and literals, once per (query, database): a repeated reference
        (a benchmark's paraphrased questions share one) is read and probed once."""
        key = (sql, url, dialect)
        if key not in self._read:
            schema, keys = self._schema(url)
            reading = read(sql, dialect, schema)
            found: list[tuple[str, str]] = []
            exact: set[Comparison] = set()
            compared = tuple(comparisons(reading)) if reading is not None else ()
            if reading is not None:
                found += [(UNMATCHED_LITERAL, d) for d in self._literals(reading, compared, url, exact)]
                found += [(JOIN_WITHOUT_CONDITION, d) for d in unjoined(reading)]
                found += [(UNGROUPED_COLUMN, u.detail) for u in self._ungrouped(reading, keys, url)]
            self._read[key] = _Read(reading, schema, tuple(found), frozenset(exact), compared)
        return self._read[key]

    def _run(self, url: str) -> Run:
        return lambda sql: self._probe(sql, url)

    def _probe(self, sql: str, url: str) -> Execution:
        return self.database.run_readonly(sql, url)

    def _schema(self, url: str) -> tuple[Schema, Keys]:
        """The schema and each table's primary key, read once per database."""
        if url not in self._schemas:
            structure: list[Any] = []
            if isinstance(self.database, _Inspectable):
                try:
                    structure = self.database.structure(url)
                except Exception:  # a schema that cannot be read leaves the columns unqualified: fewer findings
                    structure = []
            self._schemas[url] = schema_of(structure)
        return self._schemas[url]

    def _ungrouped(self, reading: Reading, keys: Keys, url: str) -> list[Ungrouped]:
        """``ungrouped_column``'s findings: by the primary keys first; what they leave is read again with the
        UNIQUE keys too (asked of the database once, and only then: most queries group by a key or nothing is
        left), then asked of the data."""
        found = ungrouped(reading, keys)
        if found and isinstance(self.database, _Keyed):
            if url not in self._keyed:
                try:
                    structure = self.database.structure(url) if isinstance(self.database, _Inspectable) else []
                    self._keyed[url] = schema_of(structure, self.database.unique_keys(url))[1]
                except Exception:  # no UNIQUE sets known: the primary keys alone, more findings, never wrong ones
                    self._keyed[url] = keys
            found = ungrouped(reading, self._keyed[url])
        return [u for u in found if self._arbitrary(u, url)]

    def _literals(
        self, reading: Reading, compared: Sequence[Comparison], url: str, exact: set[Comparison]
    ) -> list[str]:
        """``unmatched_literal``'s findings; the comparisons whose literal is stored go into ``exact``."""
        found = []
        run = self._run(url)
        for c in [c for c in compared if not c.negated][:MAX_LITERALS]:
            is_stored = stored(c, reading.dialect, run)
            if is_stored:
                exact.add(c)
            elif is_stored is False:
                close = near(c, reading.dialect, run)
                if close:
                    found.append(unmatched_detail(c, close))
        return found

    def _arbitrary(self, u: Ungrouped, url: str) -> bool:
        """The ungrouped column may differ within a group: unless the columns of its table the query groups by
        hold no repeated value in the data (one row per group; one probe)."""
        if not u.table_sql or not u.grouped:
            return True
        columns = ", ".join(u.grouped)
        got = self._probe(f"SELECT 1 FROM {u.table_sql} GROUP BY {columns} HAVING COUNT(*) > 1 LIMIT 1", url)
        return not got.ok or bool(got.rows)

    def _stored(self, c: Comparison, done: _Read, url: str) -> bool:
        """A stored value is ``c``'s literal: the unmatched check's answer, asked here for a ``!=`` only."""
        if not c.negated:
            return c in done.exact
        plain = replace(c, negated=False)
        if (url, plain) not in self._equal:
            self._equal[(url, plain)] = stored(plain, done.reading.dialect if done.reading else "", self._run(url))
        return self._equal[(url, plain)] is True

    def _against(self, done: _Read, question: str, url: str) -> tuple[tuple[str, str], ...]:
        """The findings that compare the query with its question: ``narrow_literal`` and ``output_columns``."""
        assert done.reading is not None
        said = words(question)
        dialect = done.reading.dialect
        found: list[tuple[str, str]] = []
        every = done.compared
        for c in every[:MAX_LITERALS]:
            word = class_word(c, said)
            if word is None or not self._stored(c, done, url):
                continue
            if (url, c) not in self._wider:
                self._wider[(url, c)] = wider(c, dialect, self._run(url))
            compared = {o.literal.lower() for o in every if (o.alias, o.column) == (c.alias, c.column)}
            others = narrower(c, self._wider[(url, c)], said, compared)
            if others:
                found.append((NARROW_LITERAL, narrow_detail(c, word, others)))
        outer = done.reading.outermost()
        if outer is not None and not done.reading.star:
            columns = {t: list(cols) for t, cols in done.schema.items()}
            found += [(OUTPUT_COLUMNS, d) for d in output_columns(outer[0], outer[1], columns, said)]
        return tuple(found)


def schema_of(
    structure: Sequence[Any], unique: dict[str, tuple[tuple[str, ...], ...]] | None = None
) -> tuple[Schema, Keys]:
    """The schema sqlglot qualifies with, and each table's keys (its primary key first, then each UNIQUE set
    in ``unique``: :meth:`services.readonly.execute.ReadOnlySQL.unique_keys`), from a database's structure
    (:meth:`services.readonly.execute.ReadOnlySQL.structure`: ``[table, comment, [[column, type, nullable,
    primary_key, comment], ...], foreign_keys]``)."""
    schema: dict[str, dict[str, str]] = {}
    keys: dict[str, tuple[frozenset[str], ...]] = {}
    by_lower = {t.lower(): sets for t, sets in (unique or {}).items()}
    for table in structure:
        name, columns = str(table[0]), table[2]
        schema[name] = {str(c[0]): str(c[1] or "TEXT") for c in columns}
        primary = frozenset(str(c[0]).lower() for c in columns if c[3])
        more = tuple(frozenset(str(c).lower() for c in cols) for cols in by_lower.get(name.lower(), ()))
        keys[name.lower()] = (primary, *more)
    return schema, keys


def limit_tie(sql: str, dialect: str, ties: Sequence[Ties | None]) -> str | None:
    """The self-check's finding that the reference's LIMIT cuts inside a tie, as a suspect's detail."""
    for i, tie in enumerate(ties):
        if tie is not None and tie.cut:
            plan = ordering_plan(sql, dialect)
            limit = plan.limit if plan is not None and not isinstance(plan, str) else None
            where = f" (rotation {i + 1})" if len(ties) > 1 else ""
            return (
                f"LIMIT {limit} cuts inside a tie of {len(tie.cut)} rows{where}: any of them is accepted, but a "
                "question asking for the top one may mean all of them"
            )
    return None


class Flagged(Protocol):
    """A finding of a kind about a question (:class:`Suspect`, or a study's flag)."""

    @property
    def question_id(self) -> str: ...
    @property
    def kind(self) -> str: ...


def by_kind(suspects: Sequence[Flagged]) -> dict[str, int]:
    """Questions with a finding of each kind (a question counts once per kind), every kind named."""
    seen = {kind: set() for kind in KINDS}  # type: dict[str, set[str]]
    for s in suspects:
        seen.setdefault(s.kind, set()).add(s.question_id)
    return {kind: len(ids) for kind, ids in seen.items()}
