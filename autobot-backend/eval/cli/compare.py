"""``python -m eval.compare BASE.json NEW.json`` (also ``python -m eval.cli.compare``): is B better than
A, and by more than noise? The comparison itself is :mod:`eval.tools.compare_runs`'s.

Exit codes (:mod:`eval.core.exit_codes`): 0 compared; 2 could not compare (a report that does not read,
another corpus digest without ``--common-only``, another cohort without ``--allow-off-suite``, nothing in
common).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.cli.entry import entry_point
from eval.core.exit_codes import EXIT_OK
from eval.core.output import confine, print_report, resolve_input, write_text
from eval.core.stats import BOOTSTRAP_SEED
from eval.tools.compare_runs import compare, load_report, to_html, to_markdown


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.compare",
        description="Is B better than A, and by more than noise? Two JSON reports of the SQL suite compared.",
        epilog="Exit codes: 0 compared; 2 could not compare.",
    )
    p.add_argument("base", type=Path, help="A: the JSON report to compare against")
    p.add_argument("new", type=Path, help="B: the JSON report compared")
    p.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown")
    p.add_argument("--html", metavar="PATH", help="also write one self-contained HTML page")
    p.add_argument(
        "--common-only", action="store_true", help="compare reports of different corpora on the question ids they share"
    )
    p.add_argument(
        "--allow-off-suite", action="store_true", help="compare runs of different cohorts, saying so in the output"
    )
    p.add_argument("--seed", type=int, default=BOOTSTRAP_SEED, help=f"bootstrap seed (default {BOOTSTRAP_SEED})")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for out in (args.json, args.markdown, args.html):
        if out:
            confine(out)
    result = compare(
        load_report(resolve_input(args.base), "A"),
        load_report(resolve_input(args.new), "B"),
        common_only=args.common_only,
        allow_off_suite=args.allow_off_suite,
        seed=args.seed,
    )
    text = to_markdown(result)
    print_report(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.json:
        write_text(args.json, json.dumps(result, indent=2) + "\n")
    if args.html:
        write_text(args.html, to_html(result))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
