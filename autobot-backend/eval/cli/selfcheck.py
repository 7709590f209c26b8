"""``python -m eval.cli.selfcheck``: the oracle checks itself (:mod:`eval.sql.oracle.selfcheck`), on one engine or
several (:mod:`eval.sql.oracle.crossengine`), and prints every defect::

    python -m eval.cli.selfcheck                    # build the fixtures, check, print defects; exit 0 or 2
    python -m eval.cli.selfcheck --update-snapshot  # record rotation 0's answers, then check
    python -m eval.cli.selfcheck --engines sqlite,postgresql,duckdb   # check on each engine, and compare
                                                    # the engines' answers

Exit codes (:mod:`eval.core.exit_codes`): 0 the oracle is sound; 2 it has defects or cannot be checked.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.errors import HarnessError
from eval.sql.corpus.questions import Corpus, load_corpus, stamp_path
from eval.sql.corpus.snapshot import SNAPSHOT_SEED
from eval.sql.fixtures.seeded import build_rotations
from eval.sql.model.defaults import DEFAULT_ENGINE, DEFAULT_ROTATIONS, ENGINES
from eval.sql.oracle import selfcheck as sc
from services.readonly.execute import ReadOnlySQL


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m eval.cli.selfcheck",
        description=(
            "Run every reference query of the built-in SQL corpus on every rotation of its fixture and lint it; "
            "with --engines, on every engine named, and compare the engines' answers. "
            "Exit 0 when the oracle is sound, 2 when it has defects or cannot be checked."
        ),
    )
    parser.add_argument(
        "--update-snapshot",
        action="store_true",
        help=f"record the answers on rotation 1 (seed {SNAPSHOT_SEED}) in "
        f"{stamp_path(sc.SNAPSHOT_DIR)}/<fixture>.json before checking (SQLite only)",
    )
    parser.add_argument(
        "--rotations", type=int, default=DEFAULT_ROTATIONS, help=f"rotations per fixture (default {DEFAULT_ROTATIONS})"
    )
    parser.add_argument(
        "--engines",
        default=DEFAULT_ENGINE,
        metavar="LIST",
        help=f"comma-separated engines to check on, from {', '.join(ENGINES)} (default {DEFAULT_ENGINE}); with more "
        "than one, every reference's answers are compared across them at the question's decimals",
    )
    parser.add_argument(
        "--fixture-url",
        metavar="URL",
        help="PostgreSQL: build the fixtures in this database (its role must be allowed to create schemas); "
        "default: a throwaway server",
    )
    return parser


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from eval.sql.oracle.crossengine import parse_engines, print_result, run_cross_engine

    engines = parse_engines(args.engines)
    if args.update_snapshot and engines != ["sqlite"]:
        raise HarnessError("--update-snapshot records SQLite's answers: run it without --engines")
    if args.fixture_url and "postgresql" not in engines:
        raise HarnessError("--fixture-url is where the PostgreSQL fixtures go: add postgresql to --engines")
    corpus = load_corpus()
    if args.update_snapshot:
        _update(corpus, args.rotations)
    result = run_cross_engine(
        corpus, engines, rotations=args.rotations, postgres_url=args.fixture_url, snapshot_dir=sc.SNAPSHOT_DIR
    )
    return print_result(corpus, result, args.rotations)


def _update(corpus: Corpus, rotations: int) -> None:
    fixtures = sorted({q.fixture for q in corpus.questions if q.fixture})
    with tempfile.TemporaryDirectory(prefix="sql-selfcheck-") as tmp, ReadOnlySQL() as database:
        targets: dict[str | None, list[str]] = {
            f: build_rotations(f, Path(tmp), seed=SNAPSHOT_SEED, rotations=rotations) for f in fixtures
        }
        for path in sc.update_snapshots(database, corpus, targets, sc.SNAPSHOT_DIR):
            print(f"wrote {stamp_path(path)}")


if __name__ == "__main__":
    sys.exit(main())
