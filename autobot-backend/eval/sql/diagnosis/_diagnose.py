"""One wrong or error answer's diagnosis: the clause findings and the result evidence, put together.

The primary category is the earliest in precedence among the categories the SQL comparison found;
when it found none (the candidate does not parse, differs from the reference only where it does not
matter, or only in its shape: ``other``), the result evidence's category; failing both, ``other``.
The tags are every category either found. The line names the differing clauses (the primary's first, at most
:data:`FINDINGS_SHOWN`) and the result evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from eval.sql.diagnosis._canonical import Schema, canonical
from eval.sql.diagnosis._clauses import Context, Finding, compare
from eval.sql.diagnosis._results import evidence
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
"""(reference, candidate) SQL pairs whose clause findings a process keeps (:func:`_sql_side`)."""
SCHEMA_ERROR = re.compile(
    r"no such (table|column)|does not exist|not found|unknown (table|column)|invalid column|"
    r"could not find|ambiguous column|has no column|referenced column",
    re.IGNORECASE,
)
"""Error texts of SQLite, DuckDB and PostgreSQL saying a table or column is not there (or is ambiguous)."""


def diagnose(
    candidate_sql: str | None,
    reference_sql: str | None,
    candidate_rows: Sequence[Sequence[Any]],
    reference_rows: Sequence[Sequence[Any]],
    *,
    dialect: str,
    ordered: bool = False,
    decimals: int = 2,
    column_order_any: bool = False,
    schema: Schema | None = None,
) -> Diagnosis:
    """The diagnosis of a ``wrong`` answer: the SQL of both sides and their rows on the rotation that failed."""
    result = evidence(reference_rows, candidate_rows, ordered=ordered, decimals=decimals)
    context = Context(dialect, ordered, column_order_any)
    if schema:
        ref_parses, cand_parses, findings = _sql_side_of(reference_sql, candidate_sql, context, schema)
    else:
        ref_parses, cand_parses, findings = _sql_side(reference_sql, candidate_sql, context)
    found = {f.category for f in findings}
    telling = found - {Category.OTHER}  # a difference of shape alone says less than the rows
    primary = earliest(telling) if telling else result.category or Category.OTHER
    tags = found | {primary} | ({result.category} if result.category else set())
    shown = sorted(findings, key=lambda f: f.category is not primary)[:FINDINGS_SHOWN]
    parts = [_say(f) for f in shown]
    if not cand_parses and candidate_sql:
        parts.append("candidate SQL does not parse: judged on its rows alone")
    elif not findings and ref_parses:
        parts.append("no clause differs where it matters")
    parts.append(result.text)
    kept = sorted(findings, key=lambda f: CATEGORIES.index(f.category))[:CLAUSES_KEPT]
    clauses = tuple((f.clause, _clip(f.reference, CLAUSE_QUOTED), _clip(f.candidate, CLAUSE_QUOTED)) for f in kept)
    tags_in_order = tuple(c for c in CATEGORIES if c in tags)
    return Diagnosis(primary, tags_in_order, _clip("; ".join(parts), LINE_MAX), clauses)


@lru_cache(maxsize=PAIRS_KEPT)
def _sql_side(
    reference_sql: str | None, candidate_sql: str | None, context: Context
) -> tuple[bool, bool, tuple[Finding, ...]]:
    """The SQL side of a diagnosis, a function of the two texts alone: kept, so that a pair met again (a
    question repeated, or paraphrases that share a reference and get the same answer) is compared once."""
    return _sql_side_of(reference_sql, candidate_sql, context, None)


def _sql_side_of(
    reference_sql: str | None, candidate_sql: str | None, context: Context, schema: Schema | None
) -> tuple[bool, bool, tuple[Finding, ...]]:
    """Whether each side parses, and the differing clauses when both do."""
    ref, cand = canonical(reference_sql, context.dialect, schema), canonical(candidate_sql, context.dialect, schema)
    findings = tuple(compare(ref, cand, context)) if ref is not None and cand is not None else ()
    return ref is not None, cand is not None, findings


def diagnose_error(reason: str | None) -> Diagnosis:
    """The diagnosis of an ``error`` answer: ``schema`` when the database says a table or column is not
    there, else ``runtime``."""
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
