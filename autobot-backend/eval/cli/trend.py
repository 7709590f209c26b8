"""``python -m eval.trend`` (also ``python -m eval.cli.trend``): pass rate and refusal recall over time,
per candidate and model. The trend file and its rendering are :mod:`eval.tools.trend`'s.

Exit codes (:mod:`eval.core.exit_codes`): 0 shown; 2 the file is missing or a line does not read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.exit_codes import EXIT_OK
from eval.core.output import confine, print_report, resolve_input, write_text
from eval.sql.records.trend_file import REPO_ROOT, TREND_FILE
from eval.tools import trend


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.trend",
        description="Pass rate and refusal recall over time, per candidate and model.",
        epilog="Exit codes: 0 shown; 2 the file is missing or a line does not read.",
    )
    p.add_argument("--file", type=Path, help=f"the JSON Lines trend (default {TREND_FILE.relative_to(REPO_ROOT)})")
    p.add_argument("--html", metavar="PATH", help="also write the trend as one self-contained HTML page")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown")
    p.add_argument("--backfill", metavar="PAGE", type=Path, help="add the rows of an accuracy record page, once")
    p.add_argument(
        "--all-cohorts",
        action="store_true",
        help="with --html: chart every cohort, a single run's too (by default only cohorts of two runs or more)",
    )
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    path = resolve_input(args.file) if args.file else TREND_FILE
    for report in (args.markdown, args.html):
        if report:
            confine(report)  # before the backfill writes anything
    if args.backfill:  # the trend file is written: confined as a report is, or (the built-in one) to its folder
        confine(path, flag="--file" if args.file else "the trend file", root=None if args.file else path.parent)
        n = trend.backfill(resolve_input(args.backfill), path)
        print(f"backfilled {n} run(s) from {args.backfill} into {path}", file=sys.stderr)
    runs = trend.load(path)
    text = trend.to_markdown(runs)
    print_report(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.html:
        write_text(args.html, trend.to_html(runs, all_cohorts=args.all_cohorts))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
