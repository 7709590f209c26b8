"""The methodology's worked example: one built-in question followed from its YAML to its lines in the reports.

Made from committed files only, so it shows nothing a command did not print: the corpus file, the snapshot of
the references' answers on seed 0 (``python -m eval.cli.selfcheck --update-snapshot``), and the committed run
``docs/eval/examples/sql-run.json``, the built-in generator's run that a test holds equal to the one its
baseline records (:mod:`eval.sql.records.doc_images`). Its Markdown and JUnit lines are that run rendered by the
report's own renderers. ``python -m eval.cli.docs --update-example`` writes it between the methodology's
``worked-example`` markers; ``python -m eval.cli.docs`` (and a test) fails when the page differs. The page's
prose around the block reads this question (why its verdict is ``rotation``): change the two together.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from eval.core.errors import HarnessError
from eval.core.figures import at_precision
from eval.core.markdown import code_block, escape, table
from eval.sql.corpus.questions import Corpus, stamp_path
from eval.sql.corpus.snapshot import SNAPSHOT_SEED, load_snapshot, snapshot_path
from eval.sql.model import codec
from eval.sql.model.serialise import from_json
from eval.sql.records.doc_images import DOCS_RUN
from eval.sql.records.trend_file import REPO_ROOT
from eval.sql.render import to_junit, to_markdown

EXAMPLE_ID = "rtl-group_by-005"
"""A wrong answer that matches on some rotations only: the rotations, the comparison and the diagnosis all show."""
UPDATE_EXAMPLE = "python -m eval.cli.docs --update-example"
JSON_KEYS = ("id", "verdict", "reason", "detail", "rotations_matched", "rotations", "classification")


class ExampleError(HarnessError):
    """The example's question, its snapshot or its outcome in the committed run is missing."""


def _from_root(path: Path) -> str:
    path = Path(path).resolve()
    return path.relative_to(REPO_ROOT).as_posix() if path.is_relative_to(REPO_ROOT) else path.as_posix()


def _entry(text: str, line: int) -> str:
    """The question's own lines of its YAML file, from its ``- id:`` line to the next question's."""
    lines = text.splitlines()[line - 1 :]
    end = next((i for i, s in enumerate(lines[1:], 1) if re.match(r"^\s*- id:|^\S", s)), len(lines))
    return "\n".join(lines[:end]).rstrip()


def _section(markdown: str, heading: str) -> str:
    """A failing question's section of the Markdown report: its heading to the next heading."""
    at = markdown.find(heading + ":")
    if at < 0:
        raise ExampleError(f"the Markdown report of {_from_root(DOCS_RUN)} has no section {heading!r}")
    end = min((i for i in (markdown.find("\n### ", at + 1), markdown.find("\n## ", at + 1)) if i > 0), default=-1)
    return markdown[at:end].rstrip() if end > 0 else markdown[at:].rstrip()


def _testcase(junit: str, qid: str) -> str:
    """The question's ``<testcase>`` element as the JUnit file holds it, the element's own indentation taken off."""
    pattern = r'^[ \t]*<testcase [^>]*name="' + re.escape(qid) + r'".*?</testcase>'
    found = re.search(pattern, junit, re.DOTALL | re.MULTILINE)
    if found is None:
        raise ExampleError(f"the JUnit report of {_from_root(DOCS_RUN)} has no testcase {qid!r}")
    lines = found.group(0).splitlines()
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    return "\n".join(s.removeprefix(indent) for s in lines)


def _listed(items: list[int]) -> str:
    words = [str(i) for i in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _rows_table(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    return table([escape(c) for c in columns], [[escape(v) for v in row] for row in rows])


def render_example(corpus: Corpus, qid: str = EXAMPLE_ID, run_path: Path = DOCS_RUN) -> str:
    """The block: the question's YAML, the reference's answer, the candidate's SQL, its verdict, diagnosis and
    lines in the Markdown, JUnit and JSON reports."""
    question = next((q for q in corpus.questions if q.id == qid), None)
    if question is None or question.fixture is None:
        raise ExampleError(f"the worked example's question {qid!r} is not a fixture question of the built-in corpus")
    data = json.loads(run_path.read_text(encoding="utf-8"))
    run = from_json(data, str(run_path))
    o = next((x for x in run.outcomes if x.question_id == qid), None)
    snapshot = load_snapshot(question.fixture).get(qid)
    if o is None or snapshot is None or o.excerpt is None or o.diagnosis is None:
        raise ExampleError(
            f"{qid!r} needs a wrong outcome with its excerpt and diagnosis in {_from_root(run_path)} and an answer "
            f"in {stamp_path(snapshot_path(question.fixture))}; choose another EXAMPLE_ID in {__name__}"
        )
    source = REPO_ROOT / "autobot-backend" / question.source
    excerpt, diagnosis = o.excerpt, o.diagnosis
    first = run.run.seed or 0
    seeds = list(range(first, first + (run.run.rotations or 1)))
    seed_rows = [tuple(at_precision(str(v), question.decimals) for v in row) for row in snapshot.rows]
    side_by_side = [
        [str(n), *(escape(v) for v in values), str(m), *(escape(v) for v in other)]
        for (n, values), (m, other) in zip(excerpt.expected, excerpt.actual, strict=False)
    ]
    side_by_side += [
        ["", *("" for _ in excerpt.expected_columns), str(m), *(escape(v) for v in other)]
        for m, other in excerpt.actual[len(excerpt.expected) :]
    ]
    side_by_side += [
        [str(n), *(escape(v) for v in values), "", *("" for _ in excerpt.actual_columns)]
        for n, values in excerpt.expected[len(excerpt.actual) :]
    ]
    header = ["row", *(f"reference: {escape(c)}" for c in excerpt.expected_columns)] + [
        "row",
        *(f"candidate: {escape(c)}" for c in excerpt.actual_columns),
    ]
    written = codec.to_json(o)  # the question as the JSON report holds it, some of its keys quoted
    kept = codec.to_json(diagnosis)
    shown = {k: written[k] for k in JSON_KEYS} | {"diagnosis": {k: kept[k] for k in ("primary", "tags", "line")}}
    parts = [
        f"Made by `{UPDATE_EXAMPLE}` from the committed files named below; the run is "
        f"`{_from_root(run_path)}`, the built-in generator's run that its baseline records.",
        f"**1. The question**, as `{question.source}` holds it (line {question.line}; the file's fixture is "
        f"`{question.fixture}`):",
        code_block(_entry(source.read_text(encoding="utf-8"), question.line), "yaml"),
        f"**2. The reference's answer.** Before any candidate is asked, the self-check runs `sql` on every rotation "
        f"of `{question.fixture}`, seeds {_listed(seeds)}. Its answer on seed {SNAPSHOT_SEED}, as the committed "
        f"snapshot `{stamp_path(snapshot_path(question.fixture))}` holds it:",
        _rows_table(snapshot.columns, seed_rows),
        f"**3. The candidate's answer.** `{escape(run.candidate_path)}` (`{escape(run.model)}`) was asked the "
        "question through the service and answered with:",
        code_block(o.sql or "", "sql"),
        f"**4. The verdict**: `{o.verdict.value}` (`{o.reason}`): {escape(o.detail)}. The rows the report "
        f"keeps of rotation {excerpt.rotation}, seed {seeds[excerpt.rotation - 1]} (the JSON's `excerpt`):",
        table(header, side_by_side),
        f"**5. The diagnosis**: **{diagnosis.primary.value}** (tags: {', '.join(t.value for t in diagnosis.tags)}): "
        f"{escape(diagnosis.line)}",
        "**6. Its lines in the reports.** The Markdown report (`--markdown`, and what `make eval` prints when its "
        "output is not a terminal), the question's section:",
        code_block(_section(to_markdown(run), f"### {escape(qid)}"), "markdown"),
        "The JUnit report (`--junit`), its testcase (its `time` is the committed run's; it differs from run to run):",
        code_block(_testcase(to_junit(run), qid), "xml"),
        "The JSON report (`--json`), some of the question's keys:",
        code_block(json.dumps(shown, indent=1, ensure_ascii=False), "json"),
    ]
    return "\n\n".join(parts)
