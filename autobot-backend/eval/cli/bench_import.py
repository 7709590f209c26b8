"""``python -m eval.cli.bench_import spider|bird``: a standard benchmark as a corpus and an answers file
(:mod:`eval.sql.bench.importer`), then the one command that grades it::

    python -m eval.cli.bench_import spider --questions dev.json --gold dev_gold.sql \\
        --predictions pred.sql --model din-sql-gpt4 --out spider-run --db-dir spider/database
    python -m eval.run --suite sql --corpus spider-run/spider.yaml --db-dir spider/database \\
        --candidate recorded --answers spider-run/spider.answers.jsonl

Predictions need ``--model``: the system under test is named on purpose, never after a file.

Exit codes (:mod:`eval.core.exit_codes`): 0 written; 2 a file could not be read as the benchmark writes it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_OK
from eval.core.output import resolve_input
from eval.sql.bench.importer import BenchImport, write_outputs
from eval.sql.rows import COLUMN_ORDERS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.cli.bench_import",
        description="Convert a Spider or BIRD question file, gold and predictions into a corpus of the SQL suite "
        "(one YAML file, questions naming their database) and a recorded answers file.",
        epilog="Exit codes: 0 written; 2 a file could not be read as the benchmark writes it.",
    )
    p.add_argument("benchmark", choices=("spider", "bird"))
    p.add_argument("--questions", type=Path, required=True, help="the questions file (dev.json)")
    p.add_argument(
        "--gold", type=Path, required=True, help="the gold file, 'SQL<TAB>db_id' per line (dev_gold.sql / dev.sql)"
    )
    p.add_argument(
        "--predictions",
        type=Path,
        help='spider: one SQL per line; bird: JSON {"0": "SQL\\t----- bird -----\\tdb_id", ...}',
    )
    p.add_argument("--out", type=Path, required=True, help="folder to write NAME.yaml and NAME.answers.jsonl into")
    p.add_argument("--name", help="file name stem (default: the benchmark's name)")
    p.add_argument("--prefix", help="question id prefix (default: the benchmark's name): spider-0000, ...")
    p.add_argument(
        "--model", help="the system that made the predictions (required with --predictions; written into every answer)"
    )
    p.add_argument("--db-dir", type=Path, help="check that every database is there: DIR/NAME/NAME.sqlite")
    p.add_argument(
        "--column-order",
        choices=COLUMN_ORDERS,
        help="write column_order into the corpus (any: the Spider convention; default: positional)",
    )
    p.add_argument("--decimals", type=int, help="numeric precision of every question (default: the suite's, 2)")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.decimals is not None and args.decimals < 0:
        raise UsageError("--decimals must be >= 0")
    if args.predictions is not None and not args.model:
        raise UsageError(
            f"{args.predictions}: name the system that made these predictions with --model NAME (e.g. --model "
            "din-sql-gpt4); it is written into the answers file, and the gate compares runs by it. Nothing was written"
        )
    spec = BenchImport(
        benchmark=args.benchmark,
        questions=resolve_input(args.questions),
        gold=resolve_input(args.gold),
        out=resolve_input(args.out),
        predictions=resolve_input(args.predictions) if args.predictions is not None else None,
        name=args.name,
        prefix=args.prefix,
        model=args.model,
        db_dir=resolve_input(args.db_dir) if args.db_dir is not None else None,
        column_order=args.column_order,
        decimals=args.decimals,
    )
    corpus_path, answers_path, questions = write_outputs(spec)
    databases = len({q.database for q in questions})
    print(f"corpus: {corpus_path} ({len(questions)} questions on {databases} database(s))")
    command = ["python", "-m", "eval.run", "--suite", "sql", "--corpus", str(corpus_path)]
    command += ["--db-dir", str(spec.db_dir) if spec.db_dir is not None else "DIR"]
    if answers_path is not None:
        print(f"answers: {answers_path}")
        command += ["--candidate", "recorded", "--answers", str(answers_path)]
    print("grade it with:\n  " + shlex.join(command))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
