"""``python -m eval.sql.check CORPUS... [--db-url URL | --db-dir DIR]``: lint a corpus and self-check its
references (:mod:`eval.sql.authoring.check`), grading nothing and asking no model.

Every problem is printed with its file, line and question id, and so is every lint that is not one (an
unstated order) and every suspect reference (:mod:`eval.sql.oracle.suspect`): a run grades their questions.
What it lists is what a run reports, found by the same code (:mod:`eval.sql.oracle.findings`). Exit codes
(:mod:`eval.core.exit_codes`): 0 no problems; 2 it has problems (drafts, oracle defects and near-duplicates
included), or the database cannot be opened.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.cli.sql_checks import resolve_sqlite_url
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.core.output import print_report, resolve_input
from eval.core.untrusted import clip
from eval.sql.authoring.check import check_corpus

NO_URL_HINT = "\nquestions over a database of your own need it named: add --db-url URL"
LINE_CHARS = 1000
"""A printed problem, lint or finding at most: a database's message may quote a name of a megabyte."""


def _lines(items: Sequence[str]) -> str:
    return "\n".join(clip(item, LINE_CHARS) for item in items)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.sql.check",
        description="Check SQL corpus files before a run: load and lint them, and run the self-check of every "
        "reference on the database (your own with --db-url; else the built-in fixtures, and --db-dir for "
        "'database:' questions). Nothing is graded and no model is asked.",
        epilog="Exit codes: 0 clean; 2 problems found (each printed as file:line: question id: what), or the "
        "database cannot be opened.",
        allow_abbrev=False,
    )
    p.add_argument("corpus", nargs="+", type=Path, metavar="CORPUS", help="corpus YAML file(s)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--db-url", metavar="URL", help="the database the corpus runs on (no rotations)")
    where.add_argument(
        "--db-dir", type=Path, metavar="DIR", help="where 'database: NAME' questions find DIR/NAME/NAME.sqlite"
    )
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    paths = [_shown(resolve_input(p)) for p in args.corpus]
    db_dir = resolve_input(args.db_dir) if args.db_dir is not None else None
    if db_dir is not None and not db_dir.is_dir():
        raise UsageError(f"--db-dir {args.db_dir}: not a folder")
    checked = check_corpus(paths, db_url=resolve_sqlite_url(args.db_url) if args.db_url else None, db_dir=db_dir)
    corpus, problems = checked.corpus, checked.problems
    size = f"{corpus.size} question(s) in {len(corpus.files)} file(s)" if corpus else "the corpus did not load"
    if checked.suspects:  # not problems (a run grades their questions): what to look at before trusting a verdict
        print_report(_lines(checked.suspects))
        size += f"; {len(checked.suspects)} suspect reference finding(s) above, graded as usual"
    if checked.warnings:  # lints a run reports too, but a heuristic's: not problems
        print_report(_lines(checked.warnings))
        size += f"; {len(checked.warnings)} lint warning(s) above, not problems"
    if problems:
        noun = "problem" if len(problems) == 1 else "problems"
        hint = NO_URL_HINT if not args.db_url and any(": no fixture:" in p for p in problems) else ""
        print_report(_lines(problems) + f"\n{len(problems)} {noun}; {size}; nothing was graded{hint}")
        return EXIT_CANNOT_JUDGE
    print_report(f"clean: {size}; every reference ran and passed the self-check; nothing was graded")
    return EXIT_OK


def _shown(path: Path) -> Path:
    """A file under the working folder as a path relative to it: problems read ``questions.yaml:12``."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


if __name__ == "__main__":
    sys.exit(main())
