"""A standard benchmark (Spider, BIRD) as a corpus and an answers file; the command is
``python -m eval.cli.bench_import spider|bird``.

Converts a benchmark's questions file, its gold and (optionally) a predictions file into a
multi-database corpus (one suite YAML file; each question names its ``database``) and a recorded
answers file (JSON Lines of ``{"id", "sql"}``); the command then prints the one command that grades
it::

    python -m eval.cli.bench_import spider --questions dev.json --gold dev_gold.sql \\
        --predictions pred.sql --out spider-run --db-dir spider/database
    python -m eval.run --suite sql --corpus spider-run/spider.yaml --db-dir spider/database \\
        --candidate recorded --answers spider-run/spider.answers.jsonl

A question is ``ordered`` when its gold's outermost query has an ORDER BY (read with sqlglot;
Spider's own rule, any ``order by`` in the text, only when sqlglot cannot parse it), and the file says so
(``ordered_from: sql``): the benchmark's convention, not a claim its words make, so a run raises no
unstated-order lint about it. BIRD's
``difficulty`` becomes the question's ``difficulty``, and Spider's hardness, computed from the gold by
Spider's rules (:mod:`eval.sql.bench.hardness`), becomes Spider's; BIRD's ``evidence`` is appended to
the question, as BIRD gives it to a model. A Spider corpus says ``exact_match: spider``, so each answer
also gets Spider's exact-set-match (:mod:`eval.sql.grading.exact_match`), by hardness, in every report.
The references are a user corpus: a gold query the
self-check finds defective makes its question ``unmeasured``, never stops the run.

Every database must be under the databases folder, or the import is refused naming the missing ones;
with ``skip_missing_databases`` their questions are left out, keeping every other id, and listed in
the corpus's ``skipped:`` so every output of a run counts them. A rejected import writes nothing:
every file is read and checked, and the corpus loaded, before either file is written.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from sqlglot import exp
from sqlglot.errors import SqlglotError

from eval.core import forked
from eval.core.errors import HarnessError
from eval.core.forked import Spread
from eval.core.output import confine, write_atomically
from eval.sql.bench.formats import Benchmark, BenchQuestion, read_questions
from eval.sql.bench.hardness import LEVELS, spider_hardness
from eval.sql.bench.predictions import Prediction, read_predictions
from eval.sql.bench.suspects import SuspectCount, count_suspects
from eval.sql.corpus.db_dir import database_path
from eval.sql.corpus.questions import Corpus, CorpusError, load_corpus
from eval.sql.corpus.skipped import MISSING_DATABASE, Skipped, skipped_line
from services.readonly.parsed import statement_tree

USUAL_DB_DIRS: dict[str, tuple[str, ...]] = {
    "spider": ("database", "test_database"),
    "bird": ("dev_databases", "train_databases"),
}
"""Where each benchmark keeps its databases, beside its questions file: the folder used when none is given."""
SHOWN = 10
"""Names or ids listed in a message before "..." (the count is always given)."""


def gold_is_ordered(sql: str) -> bool:
    """Whether the gold's outermost query orders its rows (Spider's text rule when it does not parse). The tree is
    the guard's shared parse, read once for this, the hardness and the self-check."""
    try:
        tree = statement_tree(sql, "sqlite")
    except SqlglotError:
        return "order by" in " ".join(sql.lower().split())
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


def usual_db_dir(benchmark: Benchmark, questions: Path, databases: set[str]) -> Path | None:
    """The benchmark's databases folder beside its questions file (Spider's ``database/``, BIRD's
    ``dev_databases/``): the first that holds every database, else the first that exists; None if none does."""
    found = [questions.parent / name for name in USUAL_DB_DIRS[benchmark] if (questions.parent / name).is_dir()]
    complete = [d for d in found if all(database_path(d, name).is_file() for name in databases)]
    return (complete or found)[0] if found else None


def corpus_document(
    benchmark: Benchmark,
    questions: list[BenchQuestion],
    column_order: str | None,
    decimals: int | None,
    skipped: list[BenchQuestion] | None = None,
) -> dict[str, Any]:
    """The suite YAML file's content."""
    items = []
    for q in questions:
        item: dict[str, Any] = {"id": q.id, "question": q.question, "database": q.database, "stratum": benchmark}
        if q.difficulty:
            item["difficulty"] = q.difficulty
        if q.ordered if q.ordered is not None else gold_is_ordered(q.gold):
            item["ordered"] = True
        if decimals is not None:
            item["decimals"] = decimals
        item["sql"] = q.gold
        items.append(item)
    head: dict[str, Any] = {"version": 1, "ordered_from": "sql"}  # ordered: the gold's ORDER BY, not the words
    if column_order:
        head["column_order"] = column_order
    if benchmark == "spider":  # Spider's users expect its exact-set-match beside execution accuracy
        head["exact_match"] = "official"
    if skipped:
        head["skipped"] = [{"id": q.id, "database": q.database, "reason": MISSING_DATABASE} for q in skipped]
    return head | {"questions": items}


def answer_lines(predictions: dict[str, Prediction], questions: list[BenchQuestion], model: str | None) -> list[str]:
    """The answers file's lines, in question order; a question without a prediction has no line."""
    lines = []
    for q in questions:
        p = predictions.get(q.id)
        if p is None:
            continue
        line: dict[str, Any] = (
            {"id": q.id, "sql": p.sql}
            if p.sql
            else {"id": q.id, "refused": True, "reason": p.why or "the prediction is empty"}
        )
        if model:
            line["model"] = model
        lines.append(_one_line(json.dumps(line, ensure_ascii=False)))
    return lines


def _one_line(text: str) -> str:
    """JSON escapes control characters but not NEL, U+2028 and U+2029, which ``str.splitlines`` (and so a
    JSON Lines reader built on it) takes for line ends: a prediction holding one stays on its line."""
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Multi-line SQL as a literal block, the way the built-in corpus is written. libyaml's emitter where PyYAML
    has it (its wheels do): five times faster on a benchmark's thousand questions, and it writes NEL (U+0085)
    so it reads back, which the pure-Python emitter does not."""


def _str(dumper: Any, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    node: yaml.ScalarNode = dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)
    return node


_Dumper.add_representer(str, _str)


@dataclass(frozen=True)
class BenchImport:
    """One conversion: the benchmark's files in, the folder (and the name) the corpus and answers go to."""

    benchmark: Benchmark
    questions: Path
    gold: Path
    out: Path
    db_dir: Path
    """Holds every question's database, DIR/NAME/NAME.sqlite (checked; the printed command names it)."""
    predictions: Path | None = None
    predictions_column: str | None = None
    """Read the predictions as CSV, the SQL in this column."""
    name: str | None = None
    prefix: str | None = None
    """Question id prefix (default: the benchmark's name)."""
    model: str | None = None
    """The system that made the predictions, written into every answer line."""
    skip_missing_databases: bool = False
    """Leave out (and list as skipped) the questions whose database is missing, rather than refuse."""
    column_order: str | None = None
    decimals: int | None = None
    check_references: bool = False
    """Self-check every gold on its database now and count the suspect ones (kept by content for the run,
    which checks them anyway: an import that only converts costs what it did before it checked)."""


@dataclass(frozen=True)
class Imported:
    """What was written, and what a user should be told about it."""

    corpus_path: Path
    answers_path: Path | None
    questions: list[BenchQuestion]
    """The questions in the corpus (the skipped ones not among them)."""
    skipped: list[BenchQuestion]
    notes: list[str] = field(default_factory=list)
    suspects: SuspectCount | None = None
    """The references of a shape that makes them likely wrong (the self-check's, on the benchmark's databases)."""


def write_outputs(args: BenchImport) -> Imported:
    """Read and check everything, then write NAME.yaml (and, with predictions, NAME.answers.jsonl) into
    ``args.out``; nothing is written when anything is refused."""
    read = read_questions(args.benchmark, args.questions, args.gold, args.prefix or args.benchmark)
    notes = list(read.notes)
    questions, skipped = _present(args, read.questions)
    # each gold parsed once, in forked children beside each other, and read there for all the import needs of it
    # (its order, Spider's hardness): the parse is most of an import's work
    spread = Spread(forked.processes(len(questions)))
    chunk = max(1, len(questions) // (4 * spread.workers))
    read_gold = _spider_gold if args.benchmark == "spider" else _gold_order
    questions = spread.map(read_gold, questions, chunk=chunk, key=_gold)
    if args.benchmark == "spider":
        notes.append(_hardness_note(questions))
        notes.append(
            "the corpus asks for Spider's exact-set-match as its script counts it (exact_match: official; extended: "
            "the project's own reading): every report of a run gives EM by hardness beside execution accuracy, "
            "never in the pass rate, and says how many answers the other mode scores differently"
        )
    answers = None
    if args.predictions is not None:
        predicted = read_predictions(args.benchmark, args.predictions, read.questions, args.predictions_column)
        notes += predicted.notes
        answers = "\n".join(answer_lines(predicted.by_id, questions, args.model)) + "\n"
    if skipped:
        notes.append(
            f"{skipped_line([Skipped(q.id, MISSING_DATABASE, q.database) for q in skipped])}: "
            f"{_listed([q.id for q in skipped])}; the corpus lists them, and every report of a run counts them"
        )
    name = args.name or args.benchmark
    corpus_path = confine(args.out / f"{name}.yaml")
    answers_path = confine(args.out / f"{name}.answers.jsonl") if answers is not None else None
    text = yaml.dump(
        corpus_document(args.benchmark, questions, args.column_order, args.decimals, skipped),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=10_000,
    )
    corpus = _check_loads(corpus_path, text)
    write_atomically(corpus_path, text)
    if answers_path is not None and answers is not None:
        write_atomically(answers_path, answers)
    suspects = count_suspects(corpus, args.db_dir) if args.check_references else None
    return Imported(corpus_path, answers_path, questions, skipped, notes, suspects)


def _present(args: BenchImport, questions: list[BenchQuestion]) -> tuple[list[BenchQuestion], list[BenchQuestion]]:
    """The questions whose database is under ``db_dir``, and those left out (refused unless skipping)."""
    missing = {q.database for q in questions if not database_path(args.db_dir, q.database).is_file()}
    if not missing:
        return questions, []
    names = sorted(missing)
    count = sum(q.database in missing for q in questions)
    where = (
        f"{args.db_dir}: no database file for {_listed(names)} (expected DIR/NAME/NAME.sqlite, "
        f"{args.benchmark}'s layout)"
    )
    if not args.skip_missing_databases:
        raise HarnessError(
            f"{where}; {count} question(s) need them. Put them there, or pass --skip-missing-databases to grade the "
            "rest (their ids are kept, and every report counts the skipped ones). Nothing was written"
        )
    kept = [q for q in questions if q.database not in missing]
    if not kept:
        raise HarnessError(f"{where}: every question's database is missing, nothing to grade. Nothing was written")
    return kept, [q for q in questions if q.database in missing]


def _gold_order(q: BenchQuestion) -> BenchQuestion:
    """``q`` knowing whether its gold orders its rows."""
    return dataclasses.replace(q, ordered=gold_is_ordered(q.gold))


def _spider_gold(q: BenchQuestion) -> BenchQuestion:
    """``q`` knowing whether its gold orders its rows, with Spider's hardness of its gold unless the benchmark gave
    one: both read from the one parse."""
    return dataclasses.replace(_gold_order(q), difficulty=q.difficulty or spider_hardness(q.gold))


def _gold(q: BenchQuestion) -> str:
    return q.gold


def _hardness_note(questions: list[BenchQuestion]) -> str:
    counts = Counter(q.difficulty for q in questions)
    unread = [q.id for q in questions if q.difficulty is None]
    return (
        "Spider's hardness computed from each gold query by the rules of Spider's evaluator: "
        + ", ".join(f"{level} {counts[level]}" for level in LEVELS)
        + (
            f"; sqlglot cannot read {len(unread)} gold query(ies), left without one: {_listed(unread)}"
            if unread
            else ""
        )
    )


def _check_loads(corpus_path: Path, text: str) -> Corpus:
    """What would be written, loaded as a corpus (the suspect count reads it: the file is loaded once), or the
    error names the file it would have been."""
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        staged = Path(tmp) / corpus_path.name
        staged.write_text(text, encoding="utf-8")
        try:
            return load_corpus([staged], fixtures=None)
        except CorpusError as exc:
            raise CorpusError([p.replace(str(staged), str(corpus_path)) for p in exc.problems]) from None


def _listed(names: list[str]) -> str:
    return ", ".join(names[:SHOWN]) + (f" ... ({len(names)} in all)" if len(names) > SHOWN else "")
