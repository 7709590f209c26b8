"""One wrong or error answer's diagnosis: evidence first.

The primary category is the smallest change that the evidence proves would make the answer right, taken
from the strongest evidence there is:

1. **the rows prove it**: the candidate's rows are the reference's once one change is made (the same rows in
   another order, the same values in another column order, the reference's columns among more, duplicates
   only, rounded values, a period moved by one): every other SQL difference changed nothing;
2. **an edit proves it**: one piece of the reference taken into the candidate (a condition, a literal,
   DISTINCT, a join's type, ORDER BY/LIMIT, an aggregate, GROUP BY, the SELECT list, WHERE, the tables
   read: :mod:`._repair`) and run read-only makes the candidate's rows the reference's (tried while both
   results are within the evidence's bound, :data:`._results.MAX_CELLS`: each edit fetches about as much);
3. otherwise **the SQL**: the earliest category in precedence among the differences that matter, those an
   edit showed to change the result first. A difference does not matter when it cannot change the result
   on this schema (a GROUP BY key the others determine), when undoing it changes nothing on this database,
   when it only changes the shape (a subquery for a join over the same tables), or when it is a join that
   only serves another difference (the table it adds is used only by that difference);
4. failing all, the category the rows point at (a superset: ``filter``; values multiplied: ``join``), else
   ``other``.

The tags are every category of a difference that matters, the primary and the rows' category. The line
names what decided it and at most :data:`FINDINGS_SHOWN` differing clauses; the clauses kept for the
side-by-side view include the harmless ones, marked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlglot import exp

from eval.sql.diagnosis import _repair
from eval.sql.diagnosis._canonical import canonical, equate
from eval.sql.diagnosis._catalog import Catalog
from eval.sql.diagnosis._clauses import Context, Finding, compare
from eval.sql.diagnosis._edits import Edit, edits
from eval.sql.diagnosis._results import _rows, evidence, readable
from eval.sql.model.diagnosis import CATEGORIES, Category, Diagnosis, earliest

FINDINGS_SHOWN = 2
"""Differing clauses a diagnosis line names; the rest are in its tags."""
QUOTED = 100
"""Characters of one side's SQL a line quotes."""
LINE_MAX = 400
"""Characters of a diagnosis line."""
CLAUSES_KEPT = 6
"""Differing clauses a diagnosis keeps for the side-by-side view, in precedence order."""
CLAUSE_QUOTED = 600
"""Characters of one side of a kept clause."""
PAIRS_KEPT = 4096
"""(reference, candidate, context) SQL pairs whose clause findings a process keeps (:func:`_sql_side`)."""
CASE_BLIND = ("sqlite", "duckdb")
"""Dialects whose names match whatever their case: an edited canonical query (names lower-cased) runs there."""
SCHEMA_ERROR = re.compile(
    r"no such (table|column)|does not exist|not found|unknown (table|column)|invalid column|"
    r"could not find|ambiguous column|has no column|referenced column",
    re.IGNORECASE,
)
"""Error texts of SQLite, DuckDB and PostgreSQL saying a name is not there or does not name one column."""

Rows = Sequence[Sequence[Any]]


@dataclass(frozen=True)
class Probe:
    """How a diagnosis asks the database about an edited candidate: the grader's own read-only path and
    comparison (:mod:`eval.sql.grading.diagnosed` builds it)."""

    run: Callable[[str], tuple[Rows, bool] | None]
    """Runs one query read-only: its rows and whether they are the reference's, as the grader compares them
    (tolerance and ties included); None when it did not run."""


# Complexity (radon E or F), kept as one function: the evidence first, then the SQL's catalog, with an early return
# for each kind of evidence in the order the page states.
def diagnose(
    candidate_sql: str | None,
    reference_sql: str | None,
    candidate_rows: Rows,
    reference_rows: Rows,
    *,
    dialect: str,
    ordered: bool = False,
    decimals: int = 2,
    column_order_any: bool = False,
    catalog: Catalog | None = None,
    probe: Probe | None = None,
) -> Diagnosis:
    """The diagnosis of a ``wrong`` answer: the SQL of both sides and their rows on the rotation that failed;
    ``catalog`` the database's keys and types, ``probe`` how to run an edit of the candidate there."""
    result = evidence(reference_rows, candidate_rows, ordered=ordered, decimals=decimals)
    context = Context(dialect, ordered, column_order_any, catalog=catalog)
    ref_parses, cand_parses, findings = _sql_side(reference_sql, candidate_sql, context)
    rows_prove = result.proof and result.category is not None and not _limitless_prefix(result.text, findings)
    tried: list[_repair.Tried] = []
    if (
        not rows_prove
        and probe is not None
        and readable(reference_rows, candidate_rows)  # an edit's result is read as the candidate's is
        and ref_parses
        and cand_parses
        and _editable(reference_sql, candidate_sql, dialect)
    ):
        tried = _edited(reference_sql, candidate_sql, context, probe, candidate_rows, decimals, ordered)
    fix = next((t.edit for t in tried if t.effect is _repair.Effect.FIXES), None)
    no_effect = {c for t in tried if t.effect is _repair.Effect.NO_EFFECT and t.edit.whole for c in _covers(t.edit)}
    findings = tuple(
        f if f.harmless or f.clause not in no_effect else _marked(f, "undoing it changes nothing on this database")
        for f in findings
    )
    telling = _telling(findings)
    if rows_prove and result.category is not None:
        primary, decided = _proven(result.category, findings), f"the rows show it: {result.text}"
    elif fix is not None:
        primary, decided = fix.category, f"{fix.what} makes the rows the reference's"
    elif telling:
        primary, decided = earliest(f.category for f in telling), ""
    else:
        primary, decided = result.category or Category.OTHER, ""
    shapes = {Category.OTHER for f in findings if f.category is Category.OTHER and not f.harmless}
    tags = {f.category for f in telling} | shapes | {primary} | ({result.category} if result.category else set())
    return Diagnosis(
        primary,
        tuple(c for c in CATEGORIES if c in tags),
        _line(findings, telling, primary, decided, result.text, ref_parses, cand_parses, candidate_sql, fix),
        _clauses(findings),
    )


def _line(
    findings: Sequence[Finding],
    telling: Sequence[Finding],
    primary: Category,
    decided: str,
    rows: str,
    ref_parses: bool,
    cand_parses: bool,
    candidate_sql: str | None,
    fix: Edit | None,
) -> str:
    # The clause an edit proved is named by the edit already: the line goes on to what else differs.
    rest = [f for f in telling if fix is None or f.clause not in _covers(fix)]
    shown = sorted(rest, key=lambda f: f.category is not primary)[:FINDINGS_SHOWN]
    parts = [decided] if decided else []
    parts += [_say(f) for f in shown]
    if not cand_parses and candidate_sql:
        parts.append("candidate SQL does not parse: judged on its rows alone")
    elif not telling and ref_parses:
        harmless = sorted({f.clause for f in findings if f.harmless})
        parts.append(
            f"no difference that matters ({', '.join(harmless)} harmless here)"
            if harmless
            else "no clause differs where it matters"
        )
    if not decided.startswith("the rows"):
        parts.append(rows)
    return _clip("; ".join(p for p in parts if p), LINE_MAX)


def _clauses(findings: Sequence[Finding]) -> tuple[tuple[str, str, str], ...]:
    kept = sorted(findings, key=lambda f: (bool(f.harmless), CATEGORIES.index(f.category)))[:CLAUSES_KEPT]
    return tuple(
        (
            f.clause + (" (harmless here)" if f.harmless else ""),
            _clip(f.reference, CLAUSE_QUOTED),
            _clip(f.candidate, CLAUSE_QUOTED),
        )
        for f in kept
    )


COVERS = {"ORDER BY": ("ORDER BY", "LIMIT", "OFFSET"), "FROM/JOIN": ("FROM/JOIN", "FROM", "JOIN")}
"""The findings' clauses an edit of a whole clause answers for."""


def _covers(edit: Edit) -> tuple[str, ...]:
    return COVERS.get(edit.clause, (edit.clause,))


def _marked(f: Finding, why: str) -> Finding:
    return Finding(f.category, f.clause, f.reference, f.candidate, f.tables, why)


def _limitless_prefix(said: str, findings: Sequence[Finding]) -> bool:
    """One side's rows are the other's first rows, but neither query's LIMIT differs: no LIMIT change makes
    them alike, so the rows prove no ``ordering`` mistake (the rows cut at the end of the order are a
    boundary's: a filter, which the SQL and the edits find)."""
    return " first " in said and not any(f.clause == "LIMIT" for f in findings)


def _proven(category: Category, findings: Sequence[Finding]) -> Category:
    """The rows' proven category, named as the SQL names it: a column only one side has that is an aggregate
    makes it an ``aggregation`` mistake (the diagnosis page's rule for the SELECT list)."""
    if category is Category.PROJECTION and any(
        f.clause == "SELECT" and f.category is Category.AGGREGATION and not (f.reference and f.candidate)
        for f in findings
    ):
        return Category.AGGREGATION
    return category


def _telling(findings: Sequence[Finding]) -> list[Finding]:
    """The differences that matter: not harmless, not a shape alone, not a join that only serves another."""
    real = [f for f in findings if not f.harmless and f.category is not Category.OTHER]
    joined = [f for f in real if f.category is Category.JOIN and f.clause == "FROM/JOIN"]
    serving = [j for j in joined if _serves(j, [o for o in real if o.category is not Category.JOIN])]
    extra_r = set().union(*(j.tables[0] for j in serving)) if serving else set()
    extra_c = set().union(*(j.tables[1] for j in serving)) if serving else set()
    # A join condition written in WHERE that links a serving table goes with that join.
    conditions = [
        f
        for f in real
        if f.category is Category.JOIN and f.clause == "WHERE" and (f.tables[0] & extra_r or f.tables[1] & extra_c)
    ]
    return [f for f in real if f not in serving and f not in conditions]


def _serves(join: Finding, others: Sequence[Finding]) -> bool:
    """A join difference whose tables (on the side that reads them) are used only by other differences: a join
    added only to reach the column another change needs belongs to that change."""
    ref_only, cand_only = join.tables
    if not ref_only and not cand_only or not others:
        return False
    used_r = set().union(*(o.tables[0] for o in others))
    used_c = set().union(*(o.tables[1] for o in others))
    return ref_only <= used_r and cand_only <= used_c


def _editable(reference_sql: str | None, candidate_sql: str | None, dialect: str) -> bool:
    """An edited canonical query (names lower-cased, unquoted) names what the original named: on a dialect
    whose names match whatever their case, or when no quoted name holds a capital."""
    if dialect in CASE_BLIND:
        return True
    quoted = re.compile(r'"[^"]*[A-Z][^"]*"')
    return not quoted.search(reference_sql or "") and not quoted.search(candidate_sql or "")


def _edited(
    reference_sql: str | None,
    candidate_sql: str | None,
    context: Context,
    probe: Probe,
    candidate_rows: Rows,
    decimals: int,
    ordered: bool,
) -> list[_repair.Tried]:
    ref, cand = _canonical_pair(reference_sql, candidate_sql, context)
    if ref is None or cand is None:
        return []
    own = _rows(candidate_rows, decimals)
    own_count = Counter(own)

    def judge(done: tuple[Rows, bool]) -> _repair.Effect:
        rows, right = done
        if right:
            return _repair.Effect.FIXES
        if not readable(rows):  # more values than the candidate's, which is within the bound: not its rows
            return _repair.Effect.CHANGES
        mine = _rows(rows, decimals)
        same = mine == own if ordered else Counter(mine) == own_count
        return _repair.Effect.NO_EFFECT if same else _repair.Effect.CHANGES

    drawn = _drawn(reference_sql, candidate_sql, context)
    return _repair.tried(ref, cand, context.dialect, context.catalog, probe.run, judge, drawn)


@lru_cache(maxsize=PAIRS_KEPT)
def _canonical_pair(
    reference_sql: str | None, candidate_sql: str | None, context: Context
) -> tuple[exp.Expr | None, exp.Expr | None]:
    """Both queries' canonical trees, kept per pair and context (read-only: an edit copies first), each with
    the columns an inner join makes equal written as the other query would (:func:`._canonical.equate`)."""
    ref = canonical(reference_sql, context.dialect, context.catalog)
    cand = canonical(candidate_sql, context.dialect, context.catalog)
    if ref is not None and cand is not None:
        equate(cand, ref)
    return ref, cand


@lru_cache(maxsize=PAIRS_KEPT)
def _drawn(reference_sql: str | None, candidate_sql: str | None, context: Context) -> _repair.Drawn:
    """The edits of a pair (its canonical trees, :func:`_canonical_pair`), kept per pair and context: which edit
    fixes is the database's to say, for each answer's own rows; what the edits are is a function of the pair."""
    ref, cand = _canonical_pair(reference_sql, candidate_sql, context)
    assert ref is not None and cand is not None  # _edited asks only for a pair whose both sides read
    return _repair.Drawn(edits(ref, cand, context.dialect, context.catalog))


@lru_cache(maxsize=PAIRS_KEPT)
def _sql_side(
    reference_sql: str | None, candidate_sql: str | None, context: Context
) -> tuple[bool, bool, tuple[Finding, ...]]:
    """Whether each side parses, and the differing clauses when both do: a function of the two texts and the
    context (the catalog in it), kept, so that a pair met again is compared once."""
    ref, cand = _canonical_pair(reference_sql, candidate_sql, context)
    findings = tuple(compare(ref, cand, context)) if ref is not None and cand is not None else ()
    return ref is not None, cand is not None, findings


def diagnose_error(reason: str | None) -> Diagnosis:
    """The diagnosis of an ``error`` answer: ``schema`` when the database says a table or column is not
    there (or a name is ambiguous), else ``runtime``."""
    why = " ".join((reason or "no reason given").split())
    category = Category.SCHEMA if SCHEMA_ERROR.search(why) else Category.RUNTIME
    return Diagnosis(category, (category,), _clip(f"did not run: {why}", LINE_MAX))


def _say(f: Finding) -> str:
    ref, cand = _clip(f.reference, QUOTED), _clip(f.candidate, QUOTED)
    if ref and cand:
        return f"{f.clause}: reference has `{ref}`, candidate has `{cand}`"
    if ref:
        return f"{f.clause}: reference has `{ref}`, candidate has none"
    return f"{f.clause}: candidate has `{cand}`, reference has none"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
