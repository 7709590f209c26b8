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
``join_without_condition`` a comma join, ``CROSS JOIN`` or ``JOIN`` without ON/USING whose table no
                           WHERE conjunct links to the others (a source of one row, an aggregate
                           without GROUP BY or ``LIMIT 1``, multiplies nothing and is not flagged).
``ungrouped_column``       a column of an aggregate query's output, HAVING or ORDER BY neither grouped
                           nor aggregated (SQLite returns an arbitrary row's value), unless its table's
                           primary key is grouped (one value per group: PostgreSQL's rule), or, on
                           SQLite, the query has exactly one MIN or MAX (bare columns then come from
                           that row, SQLite's documented rule).
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
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from sqlglot import exp

from eval.core.untrusted import clip
from eval.sql.corpus.dialects import TranspileError
from eval.sql.corpus.questions import Question
from eval.sql.grading.grade import ReadOnlyDatabase
from eval.sql.oracle.alternatives import alternative
from eval.sql.oracle.lints import ordering_plan
from eval.sql.oracle.suspect_shapes import Comparison, Keys, Reading, Schema, comparisons, read, ungrouped, unjoined
from eval.sql.rows import Ties

UNMATCHED_LITERAL = "unmatched_literal"
JOIN_WITHOUT_CONDITION = "join_without_condition"
UNGROUPED_COLUMN = "ungrouped_column"
LIMIT_TIE = "limit_tie"
KINDS = (UNMATCHED_LITERAL, JOIN_WITHOUT_CONDITION, UNGROUPED_COLUMN, LIMIT_TIE)
"""Every kind, in the order outputs list them."""

MAX_LITERALS = 20
"""String comparisons of one query whose literal is looked up in the database (two statements each at most)."""
NEAR_SHOWN = 3
"""Near values a finding quotes (the probe's LIMIT)."""
LITERAL_SHOWN = 80
"""Characters of a literal or a stored value a finding quotes."""


@dataclass(frozen=True)
class Suspect:
    question_id: str
    kind: str
    """One of :data:`KINDS`."""
    detail: str
    """What was seen, naming the literal, column or table (an alternative's is prefixed with which one)."""

    def to_json(self) -> dict[str, str]:
        return {"question_id": self.question_id, "kind": self.kind, "detail": self.detail}


@runtime_checkable
class _Inspectable(Protocol):
    def structure(self, db_url: str) -> list[Any]: ...


class SuspectCheck:
    """The checks of one self-check: each database's schema is read once (where the database can say it)."""

    def __init__(self, database: ReadOnlyDatabase) -> None:
        self.database = database
        self._schemas: dict[str, tuple[Schema, Keys]] = {}
        self._found: dict[tuple[str, str, str], tuple[tuple[str, str], ...]] = {}

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
            except TranspileError:
                continue  # the self-check reports it
            found += [Suspect(q.id, kind, prefix + detail) for kind, detail in self.query(sql, url, dialect, form_ties)]
        return found

    def query(self, sql: str, url: str, dialect: str, ties: Sequence[Ties | None] = ()) -> list[tuple[str, str]]:
        """(kind, detail) of every finding of one query on one database."""
        found = list(self._shapes(sql, url, dialect))
        tie = limit_tie(sql, dialect, ties)
        if tie is not None:
            found.append((LIMIT_TIE, tie))
        return found

    def _shapes(self, sql: str, url: str, dialect: str) -> tuple[tuple[str, str], ...]:
        """The findings of the query's shape and literals, once per (query, database): a repeated reference
        (a benchmark's paraphrased questions share one) is read and probed once."""
        key = (sql, url, dialect)
        if key not in self._found:
            schema, keys = self._schema(url)
            reading = read(sql, dialect, schema)
            found: list[tuple[str, str]] = []
            if reading is not None:
                found += [(UNMATCHED_LITERAL, d) for d in self._literals(reading, url)]
                found += [(JOIN_WITHOUT_CONDITION, d) for d in unjoined(reading)]
                found += [(UNGROUPED_COLUMN, d) for d in ungrouped(reading, keys)]
            self._found[key] = tuple(found)
        return self._found[key]

    def _schema(self, url: str) -> tuple[Schema, Keys]:
        if url not in self._schemas:
            structure: list[Any] = []
            if isinstance(self.database, _Inspectable):
                try:
                    structure = self.database.structure(url)
                except Exception:  # a schema that cannot be read leaves the columns unqualified: fewer findings
                    structure = []
            self._schemas[url] = schema_of(structure)
        return self._schemas[url]

    def _literals(self, reading: Reading, url: str) -> list[str]:
        found = []
        for c in comparisons(reading)[:MAX_LITERALS]:
            near = self._near(c, reading.dialect, url)
            if near:
                shown = ", ".join(repr(clip(v, LITERAL_SHOWN)) for v in near)
                literal = repr(clip(c.literal, LITERAL_SHOWN))
                what = f"LIKE {literal}" if c.like else (f"IN (...): {literal}" if c.listed else f"= {literal}")
                found.append(
                    f"{c.table}.{c.column} {what} matches no stored value, but "
                    f"{shown} {'does' if len(near) == 1 else 'do'} up to case, spaces or as a prefix"
                )
        return found

    def _near(self, c: Comparison, dialect: str, url: str) -> list[str]:
        """Stored values near ``c``'s literal when none matches it exactly; empty otherwise (or when a probe fails)."""
        column = exp.column(c.column, table=c.alias)
        literal = exp.Literal.string(c.literal)
        exact = exp.Like(this=column, expression=literal) if c.like else exp.EQ(this=column, expression=literal)
        source = f"FROM {c.table_sql} AS {exp.to_identifier(c.alias).sql(dialect)}"
        got = self.database.run_readonly(f"SELECT 1 {source} WHERE {exact.sql(dialect)} LIMIT 1", url)
        if not got.ok or got.rows:
            return []
        wanted = c.literal.strip().lower()
        norm = exp.Lower(this=exp.Trim(this=column.copy()))
        near: exp.Expr  # equal up to case and spaces, or starting with the literal
        if c.like:
            near = exp.Like(this=norm, expression=exp.Literal.string(wanted + "%"))
        else:
            head = exp.Substring(this=norm, start=exp.Literal.number(1), length=exp.Literal.number(len(wanted)))
            near = exp.EQ(this=head, expression=exp.Literal.string(wanted))
        probe = f"SELECT DISTINCT {column.sql(dialect)} {source} WHERE {near.sql(dialect)} LIMIT {NEAR_SHOWN}"
        got = self.database.run_readonly(probe, url)
        return [str(row[0]) for row in got.rows if row[0] is not None] if got.ok else []


def schema_of(structure: Sequence[Any]) -> tuple[Schema, Keys]:
    """The schema sqlglot qualifies with, and each table's primary key, from a database's structure
    (:meth:`services.readonly.execute.ReadOnlySQL.structure`: ``[table, comment, [[column, type, nullable,
    primary_key, comment], ...], foreign_keys]``)."""
    schema: dict[str, dict[str, str]] = {}
    keys: dict[str, frozenset[str]] = {}
    for table in structure:
        name, columns = str(table[0]), table[2]
        schema[name] = {str(c[0]): str(c[1] or "TEXT") for c in columns}
        keys[name.lower()] = frozenset(str(c[0]).lower() for c in columns if c[3])
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


def by_kind(suspects: Sequence[Suspect | dict[str, str]]) -> dict[str, int]:
    """Questions with a finding of each kind (a question counts once per kind), every kind named."""
    seen = {kind: set() for kind in KINDS}  # type: dict[str, set[str]]
    for s in suspects:
        qid, kind = (s.question_id, s.kind) if isinstance(s, Suspect) else (s["question_id"], s["kind"])
        seen.setdefault(kind, set()).add(qid)
    return {kind: len(ids) for kind, ids in seen.items()}
