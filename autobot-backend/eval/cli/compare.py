"""``python -m eval.compare BASE.json NEW.json`` (also ``python -m eval.cli.compare``): is B better than
A, and by more than noise? The comparison itself is :mod:`eval.tools.compare_runs`'s. With three or more
reports (``A.json B.json C.json ...``), the model matrix of :mod:`eval.tools.model_matrix`.

Exit codes (:mod:`eval.core.exit_codes`), the same for two runs and for a matrix: 0 compared; 2 could not
compare (a report that does not read, another corpus digest without ``--common-only``, another cohort without
``--allow-off-suite``, nothing in common). A comparison gates nothing, so it never exits 1: the gate is the
run's (``--fail-on-regression``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_OK
from eval.core.output import confine, print_report, resolve_input, write_text
from eval.core.stats import BOOTSTRAP_SEED
from eval.tools import matrix_render
from eval.tools.compare_render import to_html, to_markdown
from eval.tools.compare_runs import compare, load_report
from eval.tools.model_matrix import LABELS, matrix

Result = dict[str, Any]
Render = Callable[[Result], str]


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.compare",
        description="Is B better than A, and by more than noise? Two JSON reports of the SQL suite compared; "
        "three or more (one cohort but the model): a question-by-model matrix with pairwise tests, Holm-corrected.",
        epilog="Exit codes (two reports or more): 0 compared; 2 could not compare.",
    )
    p.add_argument("base", type=Path, help="A: the JSON report to compare against")
    p.add_argument("new", type=Path, help="B: the JSON report compared")
    p.add_argument(
        "more", type=Path, nargs="*", default=[], metavar="C", help="C, D, ...: further reports, for a model matrix"
    )
    p.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown")
    p.add_argument("--html", metavar="PATH", help="also write one self-contained HTML page")
    p.add_argument(
        "--common-only", action="store_true", help="compare reports of different corpora on the question ids they share"
    )
    p.add_argument(
        "--allow-off-suite", action="store_true", help="compare runs of different cohorts, saying so in the output"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=BOOTSTRAP_SEED,
        help=f"bootstrap seed of a two-run compare (default {BOOTSTRAP_SEED}); the matrix's tests are exact",
    )
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for out in (args.json, args.markdown, args.html):
        if out:
            confine(out)
    if args.more:
        return _matrix(args)
    result = compare(
        load_report(resolve_input(args.base), "A"),
        load_report(resolve_input(args.new), "B"),
        common_only=args.common_only,
        allow_off_suite=args.allow_off_suite,
        seed=args.seed,
    )
    return _write(args, result, to_markdown, to_html)


def _matrix(args: argparse.Namespace) -> int:
    """Three or more reports: the model matrix, written as the two-run comparison is."""
    paths = [args.base, args.new, *args.more]
    if len(paths) > len(LABELS):
        raise UsageError(f"a model matrix takes at most {len(LABELS)} reports, got {len(paths)}")
    sides = [load_report(resolve_input(path), label) for path, label in zip(paths, LABELS)]
    result = matrix(sides, common_only=args.common_only, allow_off_suite=args.allow_off_suite)
    return _write(args, result, matrix_render.to_markdown, matrix_render.to_html)


def _write(args: argparse.Namespace, result: Result, markdown: Render, html: Render) -> int:
    """The Markdown printed, and each output asked for written (the HTML rendered only when asked for)."""
    text = markdown(result)
    print_report(text)
    if args.markdown:
        write_text(args.markdown, text + "\n")
    if args.json:
        write_text(args.json, json.dumps(result, indent=2) + "\n")
    if args.html:
        write_text(args.html, html(result))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
