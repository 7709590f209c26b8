"""The changes a developer makes to show something new in every output, written down as edits of the source: a new
verdict (``timeout``), a new field of a question (``retries``) and a new section showing it (Retries).

:mod:`eval.tests.sql.sections.test_a_new_fact` applies them to a copy of the ``eval`` package and checks that every
output shows them; the files each change touches are the counts of ``docs/eval/architecture.md``'s "Where a change
goes", which the same test holds to these edits. An edit names text that must occur once in its file: when the code
moves, the test says which edit no longer applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edit:
    """``old`` replaced by ``new`` in ``path`` (under ``autobot-backend/``); ``old`` None: a new file."""

    path: str
    old: str | None
    new: str


VERDICT = "timeout"
FIELD = "retries"
SECTION_TITLE = "Retries"

_OUTCOME = "eval/sql/model/outcome.py"
_FIGURES = "eval/sql/model/figures.py"

NEW_VERDICT = (
    Edit(
        _OUTCOME,
        '    ANSWERED = "answered"\n',
        '    TIMEOUT = "timeout"\n'
        '    """The SQL ran past its time limit: no number, counted apart from the other errors."""\n'
        '    ANSWERED = "answered"\n',
    ),
    Edit(
        _OUTCOME,
        "ANSWERABLE_VERDICTS = (Verdict.PASS, Verdict.WRONG, Verdict.ERROR, Verdict.REFUSED, Verdict.UNMEASURED)",
        "ANSWERABLE_VERDICTS = (\n"
        "    Verdict.PASS, Verdict.WRONG, Verdict.ERROR, Verdict.TIMEOUT, Verdict.REFUSED, Verdict.UNMEASURED\n"
        ")",
    ),
    Edit(_FIGURES, "    error: int\n    refused: int\n", "    error: int\n    timeout: int = 0\n    refused: int\n"),
    Edit(
        _FIGURES,
        "    error: int = 0\n    refused: int = 0\n",
        "    error: int = 0\n    timeout: int = 0\n    refused: int = 0\n",
    ),
)
"""A verdict counted and shown everywhere: the member and its place in the answerable verdicts (how it counts in
the 2x2 and the refusal battery is ``outcome.py``'s rule: no number, not declined), and its count's field in the
summary and the breakdowns. Where grading gives it (``eval/sql/grading/``) is not a matter of showing it."""

NEW_FIELD = (
    Edit(
        _OUTCOME,
        '    exact: ExactMatch | None = field(default=None, metadata=key(omit="none"))\n',
        "    retries: int = 0\n"
        '    """How many times the generator was asked again after a failed answer."""\n'
        '    exact: ExactMatch | None = field(default=None, metadata=key(omit="none"))\n',
    ),
)
"""A field of a question: written to and read from the JSON by the model's codec, with nothing else changed."""

_SECTION = '''"""Retries: the questions the generator was asked again after a failed answer, and how often."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Block, Line, Place, Property, QuestionLines, Section


def line(run: SQLRun) -> str:
    retried = [o for o in run.outcomes if o.retries]
    return f"retries: {len(retried)} question(s) asked again, {sum(o.retries for o in retried)} retries in all"


class Retries(Section):
    name = "retries"
    question_column = "retries"

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        return ["## Retries", "", md.escape(line(run)) + ".", ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        return [Line.of(line(run))]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [("retries", line(run))]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        return [
            Annotation(f"SQL retried: {o.question_id}", f"asked {o.retries} more time(s)", "notice")
            for o in run.outcomes
            if o.retries
        ]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"line": line(run)}

    def markdown_question(self, run: SQLRun, o: SQLOutcome) -> QuestionLines:
        return QuestionLines(meta=[f"Retried {o.retries} time(s)  "] if o.retries else [])

    def terminal_question(self, run: SQLRun, o: SQLOutcome) -> tuple[Line | None, str | None]:
        return None, str(o.retries)

    def junit_question(self, run: SQLRun, o: SQLOutcome) -> tuple[str, list[str]]:
        return "", [f"-- retried {o.retries} time(s)"] if o.retries else []

    def html_question(self, run: SQLRun, o: SQLOutcome) -> int:
        return o.retries
'''

_TEMPLATE = """{# Retries (eval/sql/sections/retries.py). #}
{% macro section(s) %}
<p id="retries">{{ s.line }}.</p>
{% endmacro %}
{% macro card(n) %}{% if n %}<p class="retries">retried {{ n }} time(s)</p>{% endif %}{% endmacro %}
"""

NEW_SECTION = (
    Edit("eval/sql/sections/retries.py", None, _SECTION),
    Edit(
        "eval/sql/sections/__init__.py",
        "from eval.sql.sections.run import Run\n",
        "from eval.sql.sections.retries import Retries\nfrom eval.sql.sections.run import Run\n",
    ),
    Edit("eval/sql/sections/__init__.py", "    Repeats(),\n", "    Repeats(),\n    Retries(),\n"),
    Edit("eval/templates/sections/retries.html.j2", None, _TEMPLATE),
)
"""A section in every format: its module, its line in the registry, its macros for the page."""

CHANGES = {
    "a new verdict": NEW_VERDICT,
    "a new section": NEW_SECTION,
    "a new field of the run or of a question": NEW_FIELD,
    "a new fact in every output": NEW_FIELD + NEW_SECTION,
}
"""Each row of the architecture page's table that these edits make, with the edits it takes."""


def files(edits: tuple[Edit, ...]) -> list[str]:
    """The files a change touches, in order."""
    return list(dict.fromkeys(e.path for e in edits))


def as_documented(edits: tuple[Edit, ...]) -> set[str]:
    """The files as the architecture page names them: a new file by the place its kind goes (``<name>``)."""
    new = {e.path for e in edits if e.old is None}
    return {p.replace(FIELD, "<name>") if p in new else p for p in files(edits)}


def apply(root: Path, edits: tuple[Edit, ...]) -> None:
    """Make the edits under ``root`` (a copy of ``autobot-backend/``'s packages)."""
    for e in edits:
        target = root / e.path
        if e.old is None:
            assert not target.exists(), f"{e.path} exists already: the fixture's new file must be new"
            target.write_text(e.new, encoding="utf-8")
            continue
        text = target.read_text(encoding="utf-8")
        assert text.count(e.old) == 1, f"{e.path} no longer holds {e.old!r} once: update eval/tests/new_fact.py"
        target.write_text(text.replace(e.old, e.new), encoding="utf-8")
