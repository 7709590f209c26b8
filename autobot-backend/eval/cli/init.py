"""``python -m eval.sql.init --db-url URL --out DIR``: a starter corpus over a database of one's own
(:mod:`eval.sql.authoring.starter`): ``DIR/questions.yaml``, one draft question per shape over the database's
real tables, and ``DIR/answers.jsonl``, a recorded-answers template. Existing files are never overwritten.

Exit codes (:mod:`eval.core.exit_codes`): 0 written; 2 the database cannot be read, has no table with rows,
or a file is already there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.cli.sql_checks import resolve_sqlite_url
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_OK
from eval.core.output import print_report, resolve_input
from eval.sql.authoring.starter import write_starter
from services.readonly.execute import ReadOnlySQL
from services.redaction import redact_url


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.sql.init",
        description="Write a starter SQL corpus over your database: one draft example question per shape "
        "(a count, a list of rows, an ordered top-N, a must-refuse case) over its real tables, each to be "
        "checked and edited by a person, and a recorded-answers template. Guide: docs/eval/writing-a-corpus.md.",
        epilog="Exit codes: 0 written; 2 the database cannot be read or has no rows, or a file is already there.",
        allow_abbrev=False,
    )
    p.add_argument("--db-url", required=True, metavar="URL", help="the database (e.g. sqlite:///shop.db)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="the folder to write into (created)")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    url, out = resolve_sqlite_url(args.db_url), resolve_input(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out} is a file; name a folder")
    with ReadOnlySQL() as database:
        try:
            schema = database.schema(url)
        except Exception as exc:  # the executor's ExecutionError, or a URL it cannot parse
            raise UsageError(f"cannot read the database {redact_url(url)}: {getattr(exc, 'message', exc)}") from None
    if not schema.tables:
        raise UsageError(
            f"the database {redact_url(url)} has no tables: check the URL or the file "
            "(a 0-byte .sqlite file is an empty database)"
        )
    prefix = Path(_database_name(url) or "mine").stem
    written = write_starter(schema, out, prefix, redact_url(args.db_url), str(args.out))
    print_report(
        "wrote " + " and ".join(str(p) for p in written) + "\n"
        "next: edit every question (each is a draft), then check the corpus:\n"
        f"  python -m eval.sql.check {args.out}/questions.yaml --db-url {redact_url(args.db_url)}"
    )
    return EXIT_OK


def _database_name(url: str) -> str | None:
    """The database part of a URL (a SQLite file's path), for naming the questions' ids."""
    try:
        return sa.engine.make_url(url).database
    except (sa.exc.ArgumentError, ValueError, TypeError):
        return None


if __name__ == "__main__":
    sys.exit(main())
