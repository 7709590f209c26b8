"""The options of a SQL run alone, by group (a merge of shards takes the shared ones in ``sql_options``): what
is graded and where, a run split into shards, model runs, what the report files leave out, captured turns.
``eval.cli.sql.build_parser`` lists the groups in the order ``--help`` shows them."""

from __future__ import annotations

import argparse
from pathlib import Path

from eval.cli import options, sql_options
from eval.sql.model.defaults import DEFAULT_COUNTEREXAMPLES, DEFAULT_ENGINE, ENGINES
from eval.sql.model.exact import MODES, OFFICIAL


def add_graded(p: argparse.ArgumentParser) -> None:
    """What is graded, and where: the answers, the corpus, the database or fixtures and their engine."""
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
    sql_options.add_corpus(s, "grade these corpus files instead of the built-in corpus (one or more; repeatable)")
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
        "--exact-match",
        nargs="?",
        const=OFFICIAL,
        choices=MODES,
        metavar="MODE",
        help="also give every answer Spider's exact-set-match against its reference (a second figure, by "
        "difficulty, beside execution accuracy; never in the pass rate or a verdict), its figures in MODE: "
        "official (the default: as Spider's script counts it, a query its parser cannot read is no match and "
        "every question counts) or extended (the project's reading: sqlglot reads the SQL, measured answers "
        "only); both are computed, and every output says how many answers they score differently; a corpus "
        "written by bench_import spider asks for it itself (exact_match: official)",
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
    s.add_argument(
        "--counterexamples",
        nargs="?",
        const=DEFAULT_COUNTEREXAMPLES,
        default=None,
        metavar="BUDGET",
        help="search every pass for a database, data the fixture could hold, on which the answer would be wrong: "
        f"BUDGET neighbours of the graded database per pass (default {DEFAULT_COUNTEREXAMPLES}), or seconds per pass "
        "(e.g. 2s); a refuted pass keeps its verdict and is flagged, with the database shrunk to a few rows and a "
        "runnable script, in every report; part of the cohort",
    )
    s.add_argument("--rotations", type=int, default=None, metavar="N", help="fixture rotations (default 3)")
    s.add_argument("--seed", type=int, default=None, metavar="S", help="first fixture seed (default 0)")


def add_shards(p: argparse.ArgumentParser) -> None:
    """``--shard K/N`` and ``--shard-durations``: one share of a run split across machines."""
    d = p.add_argument_group("a run split across machines (python -m eval.merge joins the shards)")
    d.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only shard K of N: every N-th question of the id-sorted corpus from the K-th (or a balanced "
        "share with --shard-durations); the report says it is a shard and nothing is gated or recorded",
    )
    d.add_argument(
        "--shard-durations",
        type=Path,
        metavar="REPORT",
        help="with --shard: share the questions out by their times in this earlier JSON report (the longest first, "
        "each to the shard with the least time so far) instead of round-robin; every shard must be given the same",
    )


def add_model_runs(p: argparse.ArgumentParser) -> None:
    """Concurrency, budgets and repeats of a model's run; what it is sent; the database's limits."""
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
        "--no-sample-values",
        action="store_true",
        help="--candidate llm: send the model no value sampled from the database (the schema, the question and the "
        "rules only); as the corpus key sample_values: false or NL_SQL_LLM_SAMPLE_VALUES=0 (any one of them stops "
        "them); the cohort records it",
    )
    m.add_argument(
        "--statement-timeout",
        type=options.seconds,
        default=10.0,
        metavar="S",
        help="time limit of one SQL statement on the database (default 10)",
    )
    m.add_argument(
        "--row-cap",
        type=int,
        default=None,
        metavar="N",
        help="most rows a model's answer may return, for questions without their own row_cap (default: "
        "NL_SQL_ROW_CAP, else 10000); references are bounded by the byte budget (NL_SQL_MAX_RESULT_BYTES) alone",
    )


def add_report_detail(r: argparse._ArgumentGroup) -> None:
    """What the report files and stderr leave out: ``--verbose``, ``--no-transcripts``."""
    r.add_argument(
        "--verbose",
        action="store_true",
        help="print every log record of the service on stderr (by default the first 3 of each kind, then one line "
        "counting them: the report holds every answer's error)",
    )
    r.add_argument(
        "--no-transcripts",
        action="store_true",
        help="leave out the model's transcripts (messages sent, raw reply, per question and ask) from every "
        "report, e.g. one to be published; the reports say they were left out",
    )


def add_turns(p: argparse.ArgumentParser) -> None:
    """The answers as captured turns: ``--export-turns``, ``--judge``."""
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
