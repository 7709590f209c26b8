"""Refuted passes (``--counterexamples``, :mod:`eval.sql.counterexample`): a line counting what the search did, and
each pass it refuted with what makes its database differ from the graded one, the grader's comparison there, both
results around the first difference and (HTML; the JSON carries it too) the runnable script. Nothing is shown by a
run that did not search. The verdict stays ``pass``: the flag goes beside it (docs/eval/sql-methodology.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.counterexample import refuted_line
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Block, Line, Place, Property, Section, Table, placed

TITLE = "Refuted passes"
MEANING = (
    "each pass below matched the reference on every rotation, but the counterexample search found a database, data "
    "the fixture could hold, on which the grader would call it wrong: the answer and the reference are not the same "
    "question's answer, and one of them (check both) is wrong. The verdict stays pass; the gate counts them only "
    "with --gate-refuted"
)


def sentence() -> str:
    return MEANING[0].upper() + MEANING[1:] + "."


def searched(run: SQLRun) -> list[SQLOutcome]:
    return [o for o in run.outcomes if o.search is not None]


def refuted(run: SQLRun) -> list[tuple[SQLOutcome, str]]:
    """Each refuted pass, with its line."""
    return [(o, refuted_line(o.search)) for o in run.outcomes if o.search is not None and o.refuted]


def summary_line(run: SQLRun) -> str | None:
    """What the search did, in one line; None when the run did not search."""
    done = searched(run)
    if not done:
        return None
    found = [o.question_id for o, _ in refuted(run)]
    tried = sum(o.search.tried for o in done if o.search is not None)
    budget = next((o.search.budget for o in done if o.search is not None), "")
    ids = (": " + ", ".join(found[:10]) + (" ..." if len(found) > 10 else "")) if found else ""
    return (
        f"counterexample search ({budget} per pass): {len(found)} of {len(done)} pass(es) refuted, "
        f"{tried:,} neighbour(s) judged{ids}"
    )


def title(run: SQLRun) -> str:
    return f"{TITLE} ({len(refuted(run))} of {len(searched(run))} searched)"


def _results_table(o: SQLOutcome) -> list[str]:
    """Both results on the refuting database, side by side (untrusted values escaped)."""
    e = None if o.search is None or o.search.refuted is None else o.search.refuted.excerpt
    if e is None:
        return []
    rows: list[list[str]] = []
    for n in range(max(len(e.expected), len(e.actual))):
        ref = e.expected[n] if n < len(e.expected) else None
        got = e.actual[n] if n < len(e.actual) else None
        left = [str(ref[0]), *(md.escape(v, 80) for v in ref[1])] if ref else [""] * (1 + len(e.expected_columns))
        right = [str(got[0]), *(md.escape(v, 80) for v in got[1])] if got else [""] * (1 + len(e.actual_columns))
        rows.append(left + right)
    header = ["row", *(f"reference: {md.escape(c, 40)}" for c in e.expected_columns)]
    header += ["row", *(f"answer: {md.escape(c, 40)}" for c in e.actual_columns)]
    return [md.table(header, rows), ""]


class Refuted(Section):
    name = "refuted"
    places = placed(terminal=Place.FINDINGS, junit=Place.END, html=Place.FINDINGS)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        return self._markdown(run, details=True)

    def summary(self, run: SQLRun, at: Place) -> list[str]:
        return self._markdown(run, details=False)

    def _markdown(self, run: SQLRun, *, details: bool) -> list[str]:
        line = summary_line(run)
        if line is None:
            return []
        found = refuted(run)
        out = [f"## {title(run)}", "", md.escape(line, 1000), ""]
        if found:
            out += [sentence(), ""]
        for o, text in found:
            out += [f"### {md.escape(o.question_id)}: pass, refuted", "", md.escape(text, 1200), ""]
            if details:
                out += _results_table(o)
        if found and details:
            out += ["Each one's database, as a runnable SQL script, is in the HTML and JSON reports.", ""]
        return out

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        line = summary_line(run)
        if line is None:
            return []
        found = refuted(run)
        if not found:
            return [Line.of(line)]
        table = Table(
            title(run),
            ("question", "the database that refutes it"),
            tuple((o.question_id, text[:400]) for o, text in found),
            numeric_from=2,
        )
        return [Line.of(line), table, Line.of(sentence(), "bright_black")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        line = summary_line(run)
        if line is None:
            return []
        found = [(f"refuted.{i}", f"{o.question_id}: {text}") for i, (o, text) in enumerate(refuted(run), 1)]
        return [("counterexamples", line), *found]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        """One ``::warning`` per refuted pass."""
        return [Annotation(f"SQL refuted pass: {o.question_id}", text, "warning") for o, text in refuted(run)]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any] | None:
        line = summary_line(run)
        if line is None:
            return None
        rows = []
        for o, text in refuted(run):
            r = o.search.refuted if o.search is not None else None
            assert r is not None
            shape = ", ".join(f"{t} {n}" for t, n in r.rows.items())
            rows.append({"id": o.question_id, "line": text, "rows": shape, "script": r.script, "engine": r.engine})
        return {"line": line, "title": title(run), "meaning": sentence(), "rows": rows}
