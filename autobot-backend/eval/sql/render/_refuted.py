"""Refuted passes (``--counterexamples``, :mod:`eval.sql.counterexample`) as every output shows them, from this one
module: a line after the headline counting what the search did, and a section listing each refuted pass with
what makes its database differ from the graded one, the grader's comparison there, both results around the first
difference, and (HTML, JSON) the runnable script. Each renderer calls one function here, at one place:

* terminal: :func:`terminal` (``eval/sql/render/_terminal.py``, after the suspect references);
* Markdown and the job summary: :func:`markdown_section` (``_markdown.py``'s ``to_markdown``, after the suspects);
* HTML: :func:`html_context` (``_html.py``'s ``context``, key ``refuted``; ``templates/_refuted.html.j2``);
* JUnit: :func:`junit_properties` (``_junit.py``'s properties);
* GitHub annotations: :func:`github_notices` (``_github.py``);
* JSON: the model's own serialisation (``search`` on each searched pass, :mod:`eval.sql.model.counterexample`).

Text only here (no ``rich``); untrusted text (values, SQL) is escaped where it is rendered.
"""

from __future__ import annotations

from typing import Any

from eval.core import markdown as md
from eval.sql.model.counterexample import refuted_line
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun

TITLE = "Refuted passes"
MEANING = (
    "each pass below matched the reference on every rotation, but the counterexample search found a database, data "
    "the fixture could hold, on which the grader would call it wrong: the answer and the reference are not the same "
    "question's answer, and one of them (check both) is wrong. The verdict stays pass; the gate counts them only "
    "with --gate-refuted"
)


def sentence() -> str:
    return MEANING[0].upper() + MEANING[1:] + "."


def searched(report: SQLRun) -> list[SQLOutcome]:
    return [o for o in report.outcomes if o.search is not None]


def refuted(report: SQLRun) -> list[SQLOutcome]:
    return [o for o in report.outcomes if o.refuted]


def summary_line(report: SQLRun) -> str | None:
    """What the search did, in one line after the headline; None when the run did not search."""
    done = searched(report)
    if not done:
        return None
    found = refuted(report)
    tried = sum(o.search.tried for o in done if o.search is not None)
    budget = next((o.search.budget for o in done if o.search is not None), "")
    ids = ": " + ", ".join(o.question_id for o in found[:10]) + (" ..." if len(found) > 10 else "") if found else ""
    return (
        f"counterexample search ({budget} per pass): {len(found)} of {len(done)} pass(es) refuted, "
        f"{tried:,} neighbour(s) judged{ids}"
    )


def title(report: SQLRun) -> str:
    return f"{TITLE} ({len(refuted(report))} of {len(searched(report))} searched)"


def _results_table(o: SQLOutcome) -> list[str]:
    r = o.search.refuted if o.search is not None else None
    e = None if r is None else r.excerpt
    if e is None:
        return []
    rows: list[list[str]] = []
    for n in range(max(len(e.expected), len(e.actual))):
        ref = e.expected[n] if n < len(e.expected) else None
        got = e.actual[n] if n < len(e.actual) else None
        rows.append(
            [
                str(ref[0]) if ref else "",
                *(md.escape(v, 80) for v in (ref[1] if ref else ("",) * len(e.expected_columns))),
            ]
            + [
                str(got[0]) if got else "",
                *(md.escape(v, 80) for v in (got[1] if got else ("",) * len(e.actual_columns))),
            ]
        )
    header = ["row", *(f"reference: {md.escape(c, 40)}" for c in e.expected_columns)]
    header += ["row", *(f"answer: {md.escape(c, 40)}" for c in e.actual_columns)]
    return [md.table(header, rows), ""]


def markdown_section(report: SQLRun, *, details: bool = True) -> list[str]:
    """The search's line, and each refuted pass with both results on its database (``details``: the full report;
    the job summary gets the lines alone)."""
    line = summary_line(report)
    if line is None:
        return []
    found = refuted(report)
    out = [f"## {title(report)}", "", md.escape(line, 1000), ""]
    if found:
        out += [sentence(), ""]
    for o in found:
        assert o.search is not None
        out += [f"### {md.escape(o.question_id)}: pass, refuted", "", md.escape(refuted_line(o.search), 1200), ""]
        if details:
            out += _results_table(o)
    if found and details:
        out += ["Each one's database, as a runnable SQL script, is in the HTML and JSON reports.", ""]
    return out


def terminal_rows(report: SQLRun) -> list[tuple[str, str]]:
    """(question, line) per refuted pass, for the terminal's table."""
    return [(o.question_id, refuted_line(o.search)) for o in refuted(report) if o.search is not None]


def junit_properties(report: SQLRun) -> list[tuple[str, str]]:
    line = summary_line(report)
    if line is None:
        return []
    props = [("counterexamples", line)]
    props += [(f"refuted.{i}", f"{qid}: {text}") for i, (qid, text) in enumerate(terminal_rows(report), 1)]
    return props


def github_notices(report: SQLRun) -> list[tuple[str, str]]:
    """(title, message) of a ``::warning`` per refuted pass."""
    return [(f"SQL refuted pass: {qid}", text) for qid, text in terminal_rows(report)]


def html_context(report: SQLRun) -> dict[str, Any]:
    rows = []
    for o in refuted(report):
        r = o.search.refuted if o.search is not None else None
        assert r is not None
        rows.append(
            {
                "id": o.question_id,
                "line": refuted_line(o.search) if o.search is not None else "",
                "rows": ", ".join(f"{t} {n}" for t, n in r.rows.items()),
                "script": r.script,
                "engine": r.engine,
            }
        )
    return {
        "line": summary_line(report),
        "title": title(report) if searched(report) else "",
        "meaning": sentence(),
        "rows": rows,
    }
