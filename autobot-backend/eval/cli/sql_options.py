"""The SQL suite's options that a run and a merge of its shards (``python -m eval.merge``) both take, declared once:
what a finished run decides and records (baselines, the accuracy record) and the report files it writes."""

from __future__ import annotations

import argparse
from pathlib import Path

from eval.cli.sql_formats import REPORT_FILES


def add_corpus(p: argparse.ArgumentParser | argparse._ArgumentGroup, help: str) -> None:
    """``--corpus FILE...``, repeatable: the files graded; the merge is given the ones its shards graded."""
    p.add_argument("--corpus", type=Path, action="extend", nargs="+", metavar="FILE", help=help)


def add_records(p: argparse.ArgumentParser) -> None:
    """The baselines and the accuracy record: ``--record-baseline`` (``--force``, ``--reason``),
    ``--baseline-dir``, ``--record-accuracy``, ``--allow-off-suite``, ``--strict``."""
    b = p.add_argument_group("baselines and the accuracy record")
    b.add_argument("--record-baseline", action="store_true", help="record this run as the candidate's baseline")
    b.add_argument(
        "--force",
        action="store_true",
        help="with --record-baseline: record a run that fails the gate against the existing baseline, "
        "or that left questions unmeasured",
    )
    b.add_argument(
        "--reason",
        metavar="TEXT",
        help="with --record-baseline --force: why the regressions are accepted (written into the baseline)",
    )
    b.add_argument(
        "--baseline-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where baselines live (default: eval/golden/sql/baselines for the built-in corpus, "
        "<corpus folder>/baselines for your own)",
    )
    b.add_argument(
        "--record-accuracy",
        nargs="?",
        const=True,
        default=None,
        metavar="PATH",
        help="append this run's dated figures to docs/eval/sql-accuracy.md (the built-in corpus), or to your own "
        "record at PATH (created when missing)",
    )
    b.add_argument(
        "--allow-off-suite",
        action="store_true",
        help="a run of another cohort than its baseline's or its record's (another column order, seed, rotations, "
        "engine, ...): gate it against that baseline anyway, and keep it in the record's off-suite table; the "
        "report says so",
    )
    b.add_argument(
        "--gate-refuted",
        action="store_true",
        help="with --counterexamples: the gate counts a refuted pass as a regression where the baseline passed "
        "without one (by default every report lists refuted passes and the gate does not count them, and says so)",
    )
    b.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 when any question's reference cannot grade it (an oracle defect); the reports are still written "
        "and nothing is recorded",
    )


def add_report_files(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The report files beside JSON and Markdown (:data:`REPORT_FILES`) and ``--github-summary``; the group,
    for a suite's own report options."""
    r = p.add_argument_group("reports for people and CI")
    for f in REPORT_FILES:
        r.add_argument(f"--{f.flag}", metavar="PATH", help=f.help)
    r.add_argument(
        "--github-summary",
        action="store_true",
        help="append the summary to $GITHUB_STEP_SUMMARY; under GITHUB_ACTIONS=true also print an ::error "
        "annotation per regression and safety failure",
    )
    return r
