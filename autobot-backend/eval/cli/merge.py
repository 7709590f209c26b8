"""``python -m eval.merge SHARD.json...`` (also ``python -m eval.cli.merge``): the shards of one run (``python -m
eval.run --suite sql --shard K/N --json ...``) joined into the run, then gated, recorded and reported as an unsharded
run is (:func:`eval.cli.sql_publish.finish`). The checks and the pooling are :mod:`eval.sql.shards.merge`'s.

Exit codes as the run's: 0 merged and fine; 1 the merged run regressed (``--fail-on-regression``); 2 the shards
cannot be merged (each refusal names the file), or the merged run cannot be judged.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from eval.cli import options, sql_options
from eval.cli.entry import entry_point
from eval.core.errors import UsageError
from eval.core.exit_codes import EPILOG

PROG = "python -m eval.merge"


def build_parser(shards: str = "+", add_help: bool = True) -> argparse.ArgumentParser:
    """The command's parser; ``shards="*", add_help=False`` is the lenient one that finds shards ``--corpus`` took."""
    p = argparse.ArgumentParser(
        prog=PROG,
        add_help=add_help,
        description="Merge the JSON reports of a sharded SQL run (--shard K/N) into the run: every figure and "
        "interval computed from the pooled questions, then the gate, the baseline and the records, once.",
        epilog=EPILOG,
        allow_abbrev=False,
    )
    p.add_argument("shards", nargs=shards, type=Path, metavar="SHARD.json", help="every shard's JSON report")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="merge although shards are missing: their questions are unmeasured and every output says so "
        "(never with overlapping shards or shards run differently); nothing can then be recorded",
    )
    sql_options.add_corpus(
        p, "the corpus files the shards graded, as they were given to the run (default: the built-in corpus)"
    )
    p.add_argument("--fixtures", metavar="MODULE", help="the fixtures module the shards were given, if any")
    options.add_reports(p)
    options.add_fail_on_regression(
        p, "gate the merged run against its baseline as an unsharded run is gated: exit 1 on a regression"
    )
    sql_options.add_records(p)
    sql_options.add_report_files(p)
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    given, _ = build_parser(shards="*", add_help=False).parse_known_args(argv)
    if not given.shards:
        _taken_by_corpus(parser, given.corpus or [])
    args = parser.parse_args(argv)
    from eval.cli import sql_checks as checks
    from eval.cli.sql import fixtures_of
    from eval.cli.sql_formats import REPORT_FILES
    from eval.cli.sql_publish import finish
    from eval.core import ci_output as ci_out
    from eval.core.jsonl import json_file
    from eval.core.output import confine, print_warning, resolve_input
    from eval.sql.corpus.questions import load_corpus
    from eval.sql.model.serialise import from_json
    from eval.sql.shards.merge import MergeRefused, ShardReport, merge_shards

    args.corpus = [resolve_input(p) for p in args.corpus] if args.corpus else None
    args.baseline_dir = resolve_input(args.baseline_dir) if args.baseline_dir is not None else None
    for path in (args.json, args.markdown, *(getattr(args, f.flag) for f in REPORT_FILES)):
        if path:
            confine(path)
    if args.github_summary:
        ci_out.step_summary_path()
    if args.allow_incomplete and (args.record_baseline or args.record_accuracy):
        raise UsageError(
            "--allow-incomplete with --record-baseline or --record-accuracy: a run missing shards is not one to "
            "record; merge every shard"
        )
    reports = []
    for given in args.shards:
        path = resolve_input(given)
        data = json_file(path, MergeRefused, missing="no such shard report", unreadable="not a readable JSON report")
        reports.append(ShardReport(str(given), from_json(data, str(given))))
    on_own_database = reports[0].run.run.db_url is not None
    builtin = not args.corpus and not on_own_database
    checks.check_records(args, builtin)
    baseline_dir = checks.baseline_dir(args, builtin)
    if baseline_dir is None and (args.record_baseline or args.fail_on_regression):
        raise UsageError("say where the run's baselines live with --baseline-dir DIR")
    checks.confine_records(args, baseline_dir)
    fixtures = None if on_own_database else tuple(fixtures_of(args))
    corpus = load_corpus(args.corpus, fixtures=fixtures)
    merged = merge_shards(reports, corpus, allow_incomplete=args.allow_incomplete)
    for line in merged.replaced:
        print_warning(line)
    return finish(merged.run, args, builtin, corpus, baseline_dir)


def _taken_by_corpus(parser: argparse.ArgumentParser, corpus: list[Path]) -> None:
    """No shard given because ``--corpus`` (which takes every file after it) took them: say so, not "required"."""
    taken = [str(p) for p in corpus if p.suffix.lower() == ".json"]
    if taken:
        parser.error(
            f"no shard reports: --corpus took {', '.join(taken)} as corpus files; name the shards before --corpus "
            f"({PROG} SHARD.json... --corpus FILE...)"
        )
