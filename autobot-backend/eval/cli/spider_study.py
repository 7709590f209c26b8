"""``python -m eval.sql.spider_study``: the project measured on the shared Spider dev material
(:mod:`eval.sql.spider_study`), each set graded as a user grades it.

Subcommands:

* ``draw``: the labelled sample's seeded, stratified draw of real wrong and error answers (``--out FILE``);
* ``packets``: what a labeller sees of each drawn item, one Markdown file each (``--out DIR``);
* ``suspects``: how many golds each suspect-reference kind flags, the seeded sample of flags to judge by hand
  (``--sample FILE``, ``--stub FILE``: the judgements file to fill in), and the precision of the committed
  judgements (target 90%); ``--update-docs`` / ``--check-docs`` keep the methodology's block.

Exit codes (:mod:`eval.core.exit_codes`): 0 done (and, for a command that checks a target, met); 1 a target
it checks is not met, or a page it checks is stale; 2 it could not run (the shared folder missing, a set
that could not be graded, sampled flags not judged).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from eval.cli.entry import entry_point
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.core.output import confine, print_error, print_report, resolve_input, write_text
from eval.sql.records import docs
from eval.sql.spider_study import _suspects as suspects
from eval.sql.spider_study._draw import SEED, SIZE, draw, population
from eval.sql.spider_study._graded import grade_set
from eval.sql.spider_study._packets import write_packets
from eval.sql.spider_study._sets import SPIDER_ENV, SpiderDev, spider_dev
from eval.sql.spider_study._suspect_evidence import write_sample

UPDATE_DOCS = "python -m eval.sql.spider_study suspects --update-docs"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.sql.spider_study",
        description="The project measured on real answers: the shared Spider dev databases, questions and "
        "published prediction sets, each graded by the project's own import and run commands.",
        epilog="Exit codes: 0 done (targets met); 1 a target or page it checks is not met; 2 it could not run.",
    )
    p.add_argument(
        "--spider",
        metavar="DIR",
        help=f"the shared Spider dev folder (default: ${SPIDER_ENV}, else ../shared/data/spider-dev from the "
        "repository's root)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="draw the labelled sample: real wrong and error answers, stratified by reason")
    d.add_argument("--seed", type=int, default=SEED, help=f"the draw's seed (default {SEED})")
    d.add_argument("--size", type=int, default=SIZE, help=f"items to draw (default {SIZE})")
    d.add_argument("--out", metavar="FILE", required=True, help="write the draw here, one JSON object a line")
    k = sub.add_parser("packets", help="write what a labeller sees of each drawn item")
    k.add_argument("--draw", metavar="FILE", required=True, help="a draw written by the draw subcommand")
    k.add_argument("--out", metavar="DIR", required=True, help="folder for one Markdown file per item")
    s = sub.add_parser(
        "suspects", help="suspect references on the golds: counts by kind, the judged sample's precision"
    )
    s.add_argument("--sample", metavar="FILE", help="write the sampled flags with their evidence here (Markdown)")
    s.add_argument("--stub", metavar="FILE", help="write the judgements file for the sample, committed ones kept")
    s.add_argument("--judgements", metavar="FILE", help=f"the judgements (default {suspects.JUDGEMENTS})")
    mode = s.add_mutually_exclusive_group()
    mode.add_argument("--update-docs", action="store_true", help="rewrite the methodology page's block")
    mode.add_argument("--check-docs", action="store_true", help="exit 1 when the methodology page's block differs")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    spider = spider_dev(args.spider)
    if args.command == "draw":
        return _draw(spider, args.seed, args.size, args.out)
    if args.command == "suspects":
        return _suspects(spider, args)
    if args.command == "packets":
        from eval.sql.spider_study._draw import Item

        items = [
            Item.from_json(json.loads(line))
            for line in resolve_input(args.draw).read_text("utf-8").splitlines()
            if line.strip()
        ]
        out = write_packets(spider, items, resolve_input(args.out))
        print_report(f"{len(items)} packet(s) written to {out}")
        return EXIT_OK
    raise AssertionError(args.command)


def _draw(spider: SpiderDev, seed: int, size: int, out: str) -> int:
    graded = [grade_set(spider, name) for name in spider.prediction_sets()]
    pool = population(graded)
    drawn = draw(pool, size, seed)
    write_text(out, "".join(json.dumps(it.to_json()) + "\n" for it in drawn))
    print_report(f"{len(drawn)} of {len(pool)} wrong or error answers drawn (seed {seed}) into {Path(out)}")
    return EXIT_OK


def _suspects(spider: SpiderDev, args: argparse.Namespace) -> int:
    name = spider.prediction_sets()[0]
    graded = grade_set(spider, name)
    flags = suspects.flags_of(graded)
    drawn = suspects.sample(flags)
    judgements = suspects.load_judgements(resolve_input(args.judgements) if args.judgements else suspects.JUDGEMENTS)
    result = suspects.precision(drawn, judgements)
    body = suspects.summary(name, len(graded.questions), flags, result)
    print_report(body)
    if args.sample:
        write_sample(spider, drawn, confine(args.sample))
    if args.stub:
        stub = suspects.judgement_stub(drawn, judgements)
        write_text(args.stub, yaml.safe_dump(stub, sort_keys=False, allow_unicode=True, width=1000))
    if args.update_docs:
        changed = docs.update_block(docs.SUSPECTS_START, docs.SUSPECTS_END, body)
        print("updated" if changed else "already current", docs.METHODOLOGY_PAGE.name, file=sys.stderr)
    if args.check_docs and docs.block_on_page(docs.SUSPECTS_START, docs.SUSPECTS_END) != body.strip():
        print_error(f"the methodology page's suspect-reference figures differ: run {UPDATE_DOCS} and commit the page")
        return EXIT_REGRESSED
    if result.value is None:
        print_error(
            f"{len(result.unjudged)} sampled flag(s) not judged in {args.judgements or suspects.JUDGEMENTS}: "
            "write the sample (--sample, --stub), judge each, commit the judgements"
        )
        return EXIT_CANNOT_JUDGE
    return EXIT_OK if result.met else EXIT_REGRESSED


if __name__ == "__main__":
    raise SystemExit(main())
