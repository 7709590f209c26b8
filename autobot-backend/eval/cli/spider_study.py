"""``python -m eval.sql.spider_study``: the project measured on the shared Spider dev material
(:mod:`eval.sql.spider_study`), each set graded as a user grades it.

Subcommands:

* ``draw``: the labelled sample's seeded, stratified draw of real wrong and error answers (``--out FILE``);
* ``packets``: what a labeller sees of each drawn item, one Markdown file each (``--out DIR``);
* ``diagnosis``: the diagnosis against the committed labelled samples (``eval/golden/diagnosis/``): agreement on
  the primary, the primary among the tags, per category and a confusion table; ``--update-docs`` /
  ``--check-docs`` keep its block of the diagnosis page true;
* ``suspects``: how many golds each suspect-reference kind flags, the seeded sample of flags to judge by hand
  (``--sample FILE``, ``--stub FILE``: the judgements file to fill in), and the precision of the committed
  judgements (target 90%); ``--update-docs`` / ``--check-docs`` keep its block of the benchmarks page;
* ``counterexamples``: each set graded with ``--counterexamples`` (every pass searched for a database on which it
  would be wrong): per set passes, searched, refuted, neighbours judged and set aside, time; per database what the
  search could hold; the hand-checked sample of refutations (``--sample FILE`` writes the drawn ones to read,
  ``--stub FILE`` the judgements file to fill in); ``--update-docs`` / ``--check-docs`` keep its two blocks of the
  benchmarks page;
* ``exact-match``: each set graded with ``--exact-match official`` against Spider's official script's EM, per
  set and pair by pair; exit 1 when a set is more than 1 point off (``--update-docs`` / ``--check-docs``: the
  benchmarks page's figures).

Exit codes (:mod:`eval.core.exit_codes`): 0 done (and, for a command that checks a target, met); 1 a target
it checks is not met, or a page it checks is stale; 2 it could not run (the shared folder missing, a set
that could not be graded).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

from eval.cli.entry import entry_point
from eval.cli.parser import Parser
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK, EXIT_REGRESSED
from eval.core.output import confine, print_error, print_report, resolve_input, write_text
from eval.sql.model.diagnosis import Category
from eval.sql.records import docs
from eval.sql.spider_study import _counter as counter
from eval.sql.spider_study import _exact as exact
from eval.sql.spider_study import _refutations as refutations
from eval.sql.spider_study import _suspects as suspects
from eval.sql.spider_study._agreement import Diagnosed, agreement, markdown, to_json
from eval.sql.spider_study._audit import audit
from eval.sql.spider_study._draw import SEED, SIZE, draw, population, read_draw
from eval.sql.spider_study._graded import grade_set
from eval.sql.spider_study._labels import default_samples, read_sample, sample_name
from eval.sql.spider_study._packets import write_packets
from eval.sql.spider_study._sets import SPIDER_ENV, SpiderDev, spider_dev
from eval.sql.spider_study._suspect_evidence import write_sample


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
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
    d.add_argument(
        "--exclude", metavar="FILE", help="an earlier draw whose items this one leaves out (a held-out draw)"
    )
    g = sub.add_parser("diagnosis", help="the diagnosis against the labelled samples of real wrong answers")
    g.add_argument(
        "--labels",
        metavar="DIR",
        action="append",
        help="a labelled sample's folder (repeatable; default: the committed development and held-out samples)",
    )
    g.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    _docs_flags(g)
    s = sub.add_parser(
        "suspects", help="suspect references on the golds: counts by kind, the judged sample's precision"
    )
    s.add_argument("--sample", metavar="FILE", help="write the sampled flags with their evidence here (Markdown)")
    s.add_argument("--stub", metavar="FILE", help="write the judgements file for the sample, committed ones kept")
    s.add_argument("--judgements", metavar="FILE", help=f"the judgements (default {suspects.JUDGEMENTS})")
    _docs_flags(s)
    e = sub.add_parser(
        "exact-match",
        help="EM with --exact-match official against Spider's official script, per set and pair by pair",
    )
    e.add_argument("--first", type=int, default=20, metavar="N", help="disagreeing pairs listed per set (default 20)")
    _docs_flags(e)
    c = sub.add_parser(
        "counterexamples",
        help=f"each set with --counterexamples {counter.BUDGET}: passes searched and refuted, the checked sample",
    )
    c.add_argument("--sample", metavar="FILE", help="write the drawn refutations to check by hand here (Markdown)")
    c.add_argument("--stub", metavar="FILE", help="write the judgements file for the draw, committed ones kept")
    c.add_argument(
        "--checked", metavar="FILE", help=f"the judgements (default {refutations.CHECKED.name} beside the study)"
    )
    _docs_flags(c)
    k = sub.add_parser("packets", help="write what a labeller sees of each drawn item")
    k.add_argument("--draw", metavar="FILE", required=True, help="a draw written by the draw subcommand")
    k.add_argument("--out", metavar="DIR", required=True, help="folder for one Markdown file per item")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    spider = spider_dev(args.spider)
    if args.command == "draw":
        return _draw(spider, args.seed, args.size, args.out, args.exclude)
    if args.command == "diagnosis":
        return _diagnosis(spider, args)
    if args.command == "suspects":
        return _suspects(spider, args)
    if args.command == "exact-match":
        return _exact_match(spider, args)
    if args.command == "counterexamples":
        return _counterexamples(spider, args)
    if args.command == "packets":
        items = read_draw(resolve_input(args.draw))  # bounded like every input, a bad line named
        out = write_packets(spider, items, resolve_input(args.out))
        print_report(f"{len(items)} packet(s) written to {out}")
        return EXIT_OK
    raise AssertionError(args.command)


def _draw(spider: SpiderDev, seed: int, size: int, out: str, exclude: str | None) -> int:
    graded = [grade_set(spider, name) for name in spider.prediction_sets()]
    pool = population(graded)
    earlier = [it.key for it in read_draw(resolve_input(exclude))] if exclude else []
    drawn = draw(pool, size, seed, earlier)
    write_text(out, "".join(json.dumps(it.to_json()) + "\n" for it in drawn))
    print_report(f"{len(drawn)} of {len(pool)} wrong or error answers drawn (seed {seed}) into {Path(out)}")
    return EXIT_OK


def _docs_flags(p: argparse.ArgumentParser) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--update-docs", action="store_true", help="rewrite the figures' block of its docs page")
    mode.add_argument("--check-docs", action="store_true", help="exit 1 when the block of its docs page differs")


def _diagnosis(spider: SpiderDev, args: argparse.Namespace) -> int:
    folders = [resolve_input(f) for f in args.labels] if args.labels else default_samples()
    samples = [read_sample(folder, sample_name(folder)) for folder in folders]
    sets = sorted({item.split("/", 1)[0] for s in samples for item in s.items})
    said = {}
    for name in sets:
        graded = grade_set(spider, name)
        for index, q in graded.questions.items():
            d = q.get("diagnosis")
            if d:
                said[f"{name}/{index:04d}"] = Diagnosed(Category(d["primary"]), tuple(Category(t) for t in d["tags"]))
    results = [agreement(s, said) for s in samples]
    report = markdown(results)
    print_report(report)
    if args.json:
        write_text(args.json, json.dumps([to_json(r) for r in results], indent=1) + "\n")
    stale = _keep_docs(args, docs.REAL_DIAGNOSIS, report, "diagnosis")
    return EXIT_REGRESSED if stale or not all(r.met for r in results) else EXIT_OK


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
    if _keep_docs(args, docs.SUSPECTS, body, "suspects"):
        return EXIT_REGRESSED
    if result.value is None:
        print_error(
            f"{len(result.unjudged)} sampled flag(s) not judged in {args.judgements or suspects.JUDGEMENTS}: "
            "write the sample (--sample, --stub), judge each, commit the judgements"
        )
        return EXIT_CANNOT_JUDGE
    return EXIT_OK if result.met else EXIT_REGRESSED


def _exact_match(spider: SpiderDev, args: argparse.Namespace) -> int:
    sets = [exact.agreement(spider, grade_set(spider, name, exact.RUN_FLAGS)) for name in spider.prediction_sets()]
    print_report(exact.report(sets, args.first))
    stale = _keep_docs(args, docs.EXACT_MATCH, exact.docs_block(sets), "exact-match")
    missed = [s.name for s in sets if not s.met]
    if missed:
        print(
            f"error: more than {exact.TARGET_POINTS:g} point off the official EM: {', '.join(missed)}", file=sys.stderr
        )
    return EXIT_REGRESSED if stale or missed else EXIT_OK


def _counterexamples(spider: SpiderDev, args: argparse.Namespace) -> int:
    graded, sets = {}, []
    for name in spider.prediction_sets():
        started = time.monotonic()
        graded[name] = grade_set(spider, name, counter.RUN_FLAGS)
        sets.append(counter.searched_set(graded[name], time.monotonic() - started))
    audits = audit(spider.databases)
    print_report(counter.report(sets, audits))
    drawn = refutations.draw({s.name: s.refuted for s in sets})
    checked = refutations.load(resolve_input(args.checked) if args.checked else refutations.CHECKED)
    if args.sample:
        packets = [refutations.packet(name, graded[name].questions[i]) for name, i in drawn]
        write_text(args.sample, f"# {len(drawn)} refutations drawn: {refutations.RULE}\n\n" + "\n".join(packets))
    if args.stub:
        body = yaml.safe_dump(refutations.stub(drawn, checked), sort_keys=False, allow_unicode=True, width=1000)
        write_text(args.stub, body)
    problems = refutations.mismatch(drawn, checked) + refutations.still_refuted(checked, graded)
    table = refutations.table(checked)
    print_report(table)
    stale = _keep_docs(args, docs.SPIDER_COUNTEREXAMPLES, counter.docs_block(sets, audits), "counterexamples")
    stale = _keep_docs(args, docs.SPIDER_REFUTATIONS, table, "counterexamples") or stale
    for p in problems:
        print_error(f"{args.checked or refutations.CHECKED}: {p}: redraw with --stub FILE and judge each by hand")
    return EXIT_REGRESSED if stale or problems else EXIT_OK


def _keep_docs(args: argparse.Namespace, block: docs.Block, body: str, command: str) -> bool:
    """Rewrite (``--update-docs``) or check (``--check-docs``) the command's block of its page; whether it is stale."""
    if args.update_docs:
        changed = block.update(body)
        print("updated" if changed else "already current", block.where(), file=sys.stderr)
        return False
    if args.check_docs and block.on_page() != body.strip():
        print(
            f"error: {block.where()}'s figures differ: run python -m eval.sql.spider_study {command} "
            "--update-docs and commit the page",
            file=sys.stderr,
        )
        return True
    return False


if __name__ == "__main__":
    raise SystemExit(main())
