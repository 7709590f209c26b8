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
Spider's own rule, any ``order by`` in the text, only when sqlglot cannot parse it). BIRD's
``difficulty`` becomes the question's ``difficulty``; its ``evidence`` is appended to the question,
as BIRD gives it to a model. The references are a user corpus: a gold query the self-check finds
defective makes its question ``unmeasured``, never stops the run. How this differs from the
benchmarks' own graders is written in ``docs/eval/sql-methodology.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlglot
import yaml
from sqlglot import exp

from eval.core.errors import HarnessError
from eval.core.output import confine, write_atomically
from eval.sql.bench.formats import Benchmark, BenchQuestion, Prediction, read_predictions, read_questions
from eval.sql.corpus.db_dir import database_path
from eval.sql.corpus.questions import load_corpus


def gold_is_ordered(sql: str) -> bool:
    """Whether the gold's outermost query orders its rows (Spider's text rule when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return "order by" in " ".join(sql.lower().split())
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


def corpus_document(
    benchmark: Benchmark, questions: list[BenchQuestion], column_order: str | None, decimals: int | None
) -> dict[str, Any]:
    """The suite YAML file's content."""
    items = []
    for q in questions:
        item: dict[str, Any] = {"id": q.id, "question": q.question, "database": q.database, "stratum": benchmark}
        if q.difficulty:
            item["difficulty"] = q.difficulty
        if gold_is_ordered(q.gold):
            item["ordered"] = True
        if decimals is not None:
            item["decimals"] = decimals
        item["sql"] = q.gold
        items.append(item)
    head: dict[str, Any] = {"version": 1}
    if column_order:
        head["column_order"] = column_order
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
        lines.append(json.dumps(line, ensure_ascii=False))
    return lines


class _Dumper(yaml.SafeDumper):
    """Multi-line SQL as a literal block, the way the built-in corpus is written."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


@dataclass(frozen=True)
class BenchImport:
    """One conversion: the benchmark's files in, the folder (and the name) the corpus and answers go to."""

    benchmark: Benchmark
    questions: Path
    gold: Path
    out: Path
    predictions: Path | None = None
    name: str | None = None
    prefix: str | None = None
    """Question id prefix (default: the benchmark's name)."""
    model: str | None = None
    """The system that made the predictions, written into every answer line."""
    db_dir: Path | None = None
    """Checked to hold every question's database, DIR/NAME/NAME.sqlite."""
    column_order: str | None = None
    decimals: int | None = None


def write_outputs(args: BenchImport) -> tuple[Path, Path | None, list[BenchQuestion]]:
    """Write NAME.yaml (and, with predictions, NAME.answers.jsonl) into ``args.out``; the corpus must load."""
    questions = read_questions(args.benchmark, args.questions, args.gold, args.prefix or args.benchmark)
    if args.db_dir is not None:
        missing = sorted({q.database for q in questions if not database_path(args.db_dir, q.database).is_file()})
        if missing:
            raise HarnessError(
                f"--db-dir {args.db_dir}: no database file for {', '.join(missing[:10])}"
                f"{' ...' if len(missing) > 10 else ''} (expected DIR/NAME/NAME.sqlite, {args.benchmark}'s layout)"
            )
    name = args.name or args.benchmark
    corpus_path = confine(args.out / f"{name}.yaml")
    text = yaml.dump(
        corpus_document(args.benchmark, questions, args.column_order, args.decimals),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=10_000,
    )
    corpus_path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(corpus_path, text)
    load_corpus([corpus_path], fixtures=None)  # what was written loads, or the error names the line
    answers_path = None
    if args.predictions is not None:
        predictions = read_predictions(args.benchmark, args.predictions, questions)
        answers_path = confine(args.out / f"{name}.answers.jsonl")
        write_atomically(answers_path, "\n".join(answer_lines(predictions, questions, args.model)) + "\n")
    return corpus_path, answers_path, questions
