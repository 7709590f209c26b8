"""The SQL suite's options: its own parser, holding its flags only (``python -m eval.run --suite sql``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from eval.cli import options
from eval.sql.model.defaults import CANDIDATES, DEFAULT_CANDIDATE, DEFAULT_ENGINE, ENGINES
from eval.sql.model.run import SQLRun
from eval.sql.render import to_html, to_junit

__all__ = ["REPORT_FILES", "ReportFile", "build_parser"]


@dataclass(frozen=True)
class ReportFile:
    """A file format of the run beside the JSON and Markdown every suite writes: its flag and renderer."""

    flag: str
    help: str
    render: Callable[[SQLRun], str]


REPORT_FILES = (
    ReportFile("html", "also write one self-contained HTML report (no network needed)", to_html),
    ReportFile("junit", "also write JUnit XML: one testcase per question", to_junit),
)
"""A new format is a renderer in ``eval/sql/render/`` and a line here: the flag, its confinement check
and the writing follow."""


def build_parser() -> argparse.ArgumentParser:
    p = options.suite_parser("sql", "Grade NL-to-SQL answers on execution, not on SQL text: the SQL suite.")
    options.add_candidate(p, f"{'|'.join(CANDIDATES)} (default {DEFAULT_CANDIDATE})")
    options.add_reports(p)
    options.add_fail_on_regression(
        p,
        "gated mode, against the baseline: exit 1 when any question the baseline passed is not a pass now, "
        "any must-refuse case it declined is answered now, or an aggregate check fails (pass rate, corpus size, "
        "missing questions, composition, refusal recall, over-refusals); 2 when the gate cannot be judged "
        "(no baseline, unmeasured questions)",
    )
    options.add_timeout(p, "question")
    options.add_require_real_candidate(
        p, "refuse the reference candidate, which answers with the corpus's own SQL (it cannot fail)"
    )
    s = p.add_argument_group("what is graded, and where")
    s.add_argument(
        "--answers", type=Path, metavar="FILE", help="recorded answers (JSON Lines) for --candidate recorded"
    )
    s.add_argument(
        "--model",
        metavar="NAME",
        help="name the system whose recorded answers are graded (--candidate recorded); the answers "
        "file's own model field must agree",
    )
    s.add_argument(
        "--corpus",
        type=Path,
        action="extend",
        nargs="+",
        metavar="FILE",
        help="grade these corpus files instead of the built-in corpus (one or more; repeatable)",
    )
    s.add_argument("--db-url", metavar="URL", help="run against this database instead of the fixtures (no rotations)")
    s.add_argument(
        "--db-dir",
        type=Path,
        metavar="DIR",
        help="where questions with a 'database: NAME' key find it: DIR/NAME/NAME.sqlite (Spider's database/, "
        "BIRD's dev_databases/)",
    )
    s.add_argument(
        "--column-order",
        choices=("positional", "any"),
        default=None,
        help="positional: columns compared by position (the default); any: the reference's columns in another "
        "order pass (the Spider convention); overrides the corpus's column_order",
    )
    s.add_argument(
        "--engine",
        metavar="NAME",
        help=f"build the fixtures on this engine and grade there: {', '.join(ENGINES)} (default {DEFAULT_ENGINE})",
    )
    s.add_argument(
        "--fixture-url",
        metavar="URL",
        help="with --engine postgresql: build the fixtures in this database (its role must be allowed to create "
        "schemas there; they are dropped afterwards); default: a throwaway server of the run's own",
    )
    s.add_argument(
        "--fixtures",
        metavar="MODULE",
        help="also use the seeded fixtures a Python module defines in its FIXTURES mapping (e.g. tests.schemas)",
    )
    s.add_argument("--rotations", type=int, default=None, metavar="N", help="fixture rotations (default 3)")
    s.add_argument("--seed", type=int, default=None, metavar="S", help="first fixture seed (default 0)")
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
    m = p.add_argument_group("model runs")
    options.add_run_limits(m, items="questions", concurrency_default="4 for --candidate llm, 1 otherwise")
    m.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="K",
        help="ask each question K times (a model's run-to-run variance: pass@K, pass^K, flaky questions; "
        "the headline is the majority verdict); refused for deterministic candidates",
    )
    m.add_argument(
        "--statement-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="time limit of one SQL statement on the database (default 10)",
    )
    r = p.add_argument_group("reports for people and CI")
    for f in REPORT_FILES:
        r.add_argument(f"--{f.flag}", metavar="PATH", help=f.help)
    r.add_argument(
        "--github-summary",
        action="store_true",
        help="append the summary to $GITHUB_STEP_SUMMARY; under GITHUB_ACTIONS=true also print an ::error "
        "annotation per regression and safety failure",
    )
    j = p.add_argument_group("the answers as captured turns")
    j.add_argument(
        "--export-turns",
        metavar="PATH",
        help="also write every answer of the run as a captured turn (JSON Lines; same confinement as --json)",
    )
    j.add_argument(
        "--judge",
        action="store_true",
        help="also judge every answer as a captured turn (NL_SQL_JUDGE_*) and report the judge's agreement with "
        "the execution verdicts, per stratum",
    )
    return p
