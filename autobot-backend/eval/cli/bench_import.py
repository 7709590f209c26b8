"""``python -m eval.cli.bench_import spider|bird``: a standard benchmark as a corpus and an answers file
(:mod:`eval.sql.bench.importer`), then the one command that grades it, which runs as printed::

    python -m eval.cli.bench_import spider --questions spider/dev.json --gold spider/dev_gold.sql \\
        --predictions pred.sql --model din-sql-gpt4 --out spider-run
    python -m eval.run --suite sql --corpus /abs/spider-run/spider.yaml --db-dir /abs/spider/database \\
        --candidate recorded --answers /abs/spider-run/spider.answers.jsonl

Predictions need ``--model``: the system under test is named on purpose, never after a file. The
databases folder is ``--db-dir``, or the benchmark's own beside the questions file (Spider's
``database/``, BIRD's ``dev_databases/``); with neither the import is refused up front, so the printed
command never holds a placeholder.

Exit codes (:mod:`eval.core.exit_codes`): 0 written; 2 a file could not be read as the benchmark writes it,
or a database is missing (nothing is written then).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_OK
from eval.core.output import print_report, resolve_input
from eval.sql.bench.formats import Benchmark, read_json
from eval.sql.bench.importer import USUAL_DB_DIRS, BenchImport, usual_db_dir, write_outputs
from eval.sql.rows import COLUMN_ORDERS


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.cli.bench_import",
        description="Convert a Spider or BIRD question file, gold and predictions into a corpus of the SQL suite "
        "(one YAML file, questions naming their database) and a recorded answers file.",
        epilog="Exit codes: 0 written; 2 a file could not be read as the benchmark writes it, or a database is "
        "missing (nothing is written then).",
    )
    p.add_argument("benchmark", choices=("spider", "bird"))
    p.add_argument("--questions", type=Path, required=True, help="the questions file (dev.json)")
    p.add_argument(
        "--gold", type=Path, required=True, help="the gold file, 'SQL<TAB>db_id' per line (dev_gold.sql / dev.sql)"
    )
    p.add_argument(
        "--predictions",
        type=Path,
        help='spider: one SQL per line (read as Spider\'s evaluator reads it); bird: JSON {"0": "SQL\\t----- bird '
        '-----\\tdb_id", ...}; either: a CSV file with --predictions-column',
    )
    p.add_argument(
        "--predictions-column",
        metavar="NAME",
        help="read --predictions as CSV with a header row; NAME is the column holding the SQL (DIN-SQL's: "
        "'PREDICTED SQL'); rows pair with the questions by position",
    )
    p.add_argument("--out", type=Path, required=True, help="folder to write NAME.yaml and NAME.answers.jsonl into")
    p.add_argument("--name", help="file name stem (default: the benchmark's name)")
    p.add_argument("--prefix", help="question id prefix (default: the benchmark's name): spider-0000, ...")
    p.add_argument(
        "--model", help="the system that made the predictions (required with --predictions; written into every answer)"
    )
    p.add_argument(
        "--db-dir",
        type=Path,
        help="the folder holding every database, DIR/NAME/NAME.sqlite (default: the benchmark's own beside the "
        "questions file: spider's database/, bird's dev_databases/)",
    )
    p.add_argument(
        "--skip-missing-databases",
        action="store_true",
        help="leave out the questions whose database is missing under the databases folder, keeping every id, "
        "and list them in the corpus so every report counts them (default: refuse, naming them)",
    )
    p.add_argument(
        "--column-order",
        choices=COLUMN_ORDERS,
        help="write column_order into the corpus (any: the Spider convention; default: positional)",
    )
    p.add_argument("--decimals", type=int, help="numeric precision of every question (default: the suite's, 2)")
    p.add_argument(
        "--check-references",
        action="store_true",
        help="self-check every gold on its database now and print how many are suspect, by kind (default: the "
        "first run checks them and every report shows them; what this finds is kept for that run)",
    )
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
    if args.predictions_column is not None and args.predictions is None:
        raise UsageError("--predictions-column names a column of the --predictions file: give --predictions too")
    questions = resolve_input(args.questions)
    db_dir = resolve_input(args.db_dir) if args.db_dir is not None else _usual_db_dir(args.benchmark, questions)
    spec = BenchImport(
        benchmark=args.benchmark,
        questions=questions,
        gold=resolve_input(args.gold),
        out=resolve_input(args.out),
        db_dir=db_dir,
        predictions=resolve_input(args.predictions) if args.predictions is not None else None,
        predictions_column=args.predictions_column,
        name=args.name,
        prefix=args.prefix,
        model=args.model,
        skip_missing_databases=args.skip_missing_databases,
        column_order=args.column_order,
        decimals=args.decimals,
        check_references=args.check_references,
    )
    done = write_outputs(spec)
    databases = len({q.database for q in done.questions})
    lines = [f"corpus: {done.corpus_path} ({len(done.questions)} questions on {databases} database(s))"]
    if args.db_dir is None:
        lines.append(f"databases: {db_dir} ({args.benchmark}'s own folder beside {args.questions}; --db-dir not given)")
    command = ["python", "-m", "eval.run", "--suite", "sql", "--corpus", str(done.corpus_path), "--db-dir", str(db_dir)]
    if done.answers_path is not None:
        lines.append(f"answers: {done.answers_path}")
        command += ["--candidate", "recorded", "--answers", str(done.answers_path)]
    lines += [f"note: {note}" for note in done.notes]
    if done.suspects is None:
        lines.append(
            "references: checked when the corpus is graded (suspect references and oracle defects are in every "
            "report of the run); --check-references counts them now"
        )
    else:
        lines.append(done.suspects.line())
        if done.suspects.suspects:
            check = ["python", "-m", "eval.sql.check", str(done.corpus_path), "--db-dir", str(db_dir)]
            lines.append(
                "  each is graded as usual and shown beside its verdict in every report; list them with "
                + shlex.join(check)
            )
    lines.append("grade it with (from autobot-backend/):\n  " + shlex.join(command))
    print_report("\n".join(lines))
    return EXIT_OK


def _usual_db_dir(benchmark: Benchmark, questions: Path) -> Path:
    """The benchmark's databases folder beside the questions file, or a refusal before anything is read."""
    items = read_json(questions)
    names = [i.get("db_id") for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    found = usual_db_dir(benchmark, questions, {n for n in names if isinstance(n, str)})
    if found is None:
        usual = " or ".join(f"{name}/" for name in USUAL_DB_DIRS[benchmark])
        raise UsageError(
            f"--db-dir not given, and no {usual} beside {questions}: pass --db-dir DIR, the folder holding "
            "NAME/NAME.sqlite for every database, so the import checks them and the command it prints runs as "
            "printed. Nothing was written"
        )
    return found


if __name__ == "__main__":
    from eval.core.process_exit import exit_process

    exit_process(main())
