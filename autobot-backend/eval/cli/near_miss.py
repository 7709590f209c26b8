"""``python -m eval.sql.near_miss`` (or ``python -m eval.cli.near_miss``): run the near-miss study
(:mod:`eval.sql.near_miss`), print its report, keep its blocks of the diagnosis page true.

Exit codes (:mod:`eval.core.exit_codes`): 0 the study ran and every survivor has a reason; 1 it has a
problem to fix (a survivor without a reason, a claim of equivalence the study killed, an
explanation matching no survivor, or, with ``--check-docs``, a diagnosis page (``docs/eval/diagnosis.md``)
that says otherwise: the kill-rate block or the diagnosis-agreement block); 2 it could not run. The diagnosis
agreement is reported, never an exit code of its own: its target is the diagnoser's, not the corpus's.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.errors import UsageError
from eval.core.exit_codes import EXIT_OK, EXIT_REGRESSED
from eval.core.output import confine, print_report, write_text
from eval.sql.corpus.questions import load_corpus
from eval.sql.counterexample.budget import Budget
from eval.sql.near_miss import (
    agreement_block,
    classify,
    docs_block,
    load_explanations,
    markdown,
    run_study,
    to_json,
)
from eval.sql.near_miss._counter import STUDY_BUDGET, counter_block, load_rewrites, search_survivors
from eval.sql.near_miss._counter import problems as counter_problems
from eval.sql.records import docs

UPDATE_DOCS = "python -m eval.sql.near_miss --update-docs"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m eval.sql.near_miss",
        description="Run the near-miss study, print its report, keep its blocks of docs/eval/diagnosis.md true.",
        epilog="Exit codes: 0 every survivor has a reason; 1 a problem to fix (or, with --check-docs, a stale "
        "page); 2 the study could not run.",
    )
    p.add_argument("--json", metavar="OUT", help="also write every mutant, its outcome and its reason as JSON")
    p.add_argument("--markdown", metavar="OUT", help="also write the Markdown report here")
    p.add_argument(
        "--counterexamples",
        nargs="?",
        const=STUDY_BUDGET,
        default=None,
        metavar="BUDGET",
        help="also put every open and equivalent survivor and every rewrite of rewrites.yaml to the counterexample "
        f"search, BUDGET neighbours each (default {STUDY_BUDGET}); with --update-docs/--check-docs, its block too",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--update-docs", action="store_true", help="rewrite the study's blocks of docs/eval/diagnosis.md")
    mode.add_argument("--check-docs", action="store_true", help="exit 1 when a block of docs/eval/diagnosis.md differs")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        budget = None if args.counterexamples is None else Budget.parse(args.counterexamples)
    except ValueError as exc:
        raise UsageError(f"--counterexamples {exc}") from None
    for path in (args.json, args.markdown):
        if path:
            confine(path)
    progress = (
        (lambda i, n: print(f"\r[{i}/{n}]", end="\n" if i == n else "", file=sys.stderr))
        if sys.stderr.isatty()
        else None
    )
    study = run_study(load_corpus(), progress=progress)
    result = classify(study.judged, load_explanations())
    report = markdown(study, result)
    print_report(report)
    if args.json:
        write_text(args.json, json.dumps(to_json(study, result), indent=1) + "\n")
    if args.markdown:
        write_text(args.markdown, report + "\n")
    blocks = [(docs.NEAR_MISS, docs_block(study, result)), (docs.DIAGNOSIS_AGREEMENT, agreement_block(study))]
    if budget is not None:
        searched = search_survivors(load_corpus(), result, load_rewrites(), budget)
        block = counter_block(searched, budget)
        print_report(block)
        blocks.append((docs.NEAR_MISS_COUNTEREXAMPLES, block))
        result.problems += counter_problems(searched)
    if args.update_docs:
        changed = [block.update(body) for block, body in blocks]
        print("updated" if any(changed) else "already current", docs.NEAR_MISS.where(), file=sys.stderr)
    stale = args.check_docs and any(block.on_page() != body.strip() for block, body in blocks)
    if stale:
        print(
            f"error: {docs.NEAR_MISS.where()}'s near-miss figures differ: run {UPDATE_DOCS} and commit the page",
            file=sys.stderr,
        )
    if result.problems:
        print(f"error: {len(result.problems)} problem(s) in the study; see the report", file=sys.stderr)
    return EXIT_REGRESSED if result.problems or stale else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
