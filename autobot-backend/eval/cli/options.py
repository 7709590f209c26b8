"""What the suites of ``python -m eval.run`` share, declared once: the suite list, and the options
more than one suite takes, each added to a suite's parser by one function here.

Each suite has its own parser (:func:`suite_parser`), holding only that suite's options, so a
flag of another suite is an error naming the suite it belongs to (:mod:`eval.cli.run`), never a
flag silently ignored. Abbreviations are off: a prefix of another suite's flag could otherwise
pass for one of this suite's (``--record`` for ``--recorded-dir``).
"""

from __future__ import annotations

import argparse
import math
from typing import Final

from eval.core.errors import UsageError
from eval.core.exit_codes import EPILOG
from eval.core.runner import timeout_from_env

PROG: Final = "python -m eval.run"
DEFAULT_SUITE: Final = "trajectory"
SUITES: Final = {
    "trajectory": "replay goldens against a candidate and report drift (the default)",
    "sql": "grade NL-to-SQL answers on execution",
    "turns": "judge captured turns that have no reference",
}
"""Every suite, and what it does, in the order ``--help`` lists them."""
TITLES: Final = {"trajectory": "trajectory suite", "sql": "SQL suite", "turns": "turns suite"}

Container = argparse._ActionsContainer
"""A parser or one of its argument groups."""


def suite_parser(suite: str, description: str) -> argparse.ArgumentParser:
    """A suite's parser: its ``--help`` lists the suites and the exit codes; ``--suite`` is declared here."""
    listing = "; ".join(f"{name}: {what}" for name, what in SUITES.items())
    p = argparse.ArgumentParser(
        prog=PROG,
        description=description,
        epilog=f"Suites: {listing}. `{PROG} --suite NAME --help` shows that suite's options. {EPILOG}",
        allow_abbrev=False,
    )
    p.add_argument(
        "--suite",
        choices=tuple(SUITES),
        default=DEFAULT_SUITE,
        help=f"which suite to run (default: {DEFAULT_SUITE}); these are the {TITLES[suite]}'s options",
    )
    return p


def add_candidate(p: Container, help: str) -> None:
    """``--candidate``: validated by the suite, which names its own candidates in the error."""
    p.add_argument("--candidate", default=None, metavar="NAME", help=help)


def add_require_real_candidate(p: Container, help: str) -> None:
    p.add_argument("--require-real-candidate", action="store_true", help=help)


def add_reports(p: Container) -> None:
    """``--json`` and ``--markdown``: where the report is also written (checked before the run)."""
    p.add_argument(
        "--json",
        metavar="PATH",
        help="also write the JSON report here (inside the directory you ran the command from, or EVAL_OUTPUT_DIR)",
    )
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown report here (same confinement)")


def add_fail_on_regression(p: Container, help: str) -> None:
    """``--fail-on-regression``: gated mode; what it gates on is the suite's, in ``help``."""
    p.add_argument("--fail-on-regression", action="store_true", help=help)


def seconds(raw: str) -> float:
    """An option's number of seconds: positive and finite (``nan`` compares false with every deadline and
    ``inf`` never ends); argparse names the option in its refusal."""
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{raw!r} is not a positive, finite number of seconds")
    return value


def add_timeout(p: Container, item: str) -> None:
    p.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="S",
        help=f"per-{item} timeout in seconds (default: EVAL_REPLAY_TIMEOUT_S or 120)",
    )


def timeout_s(timeout: float | None) -> float:
    """``--timeout``, else the environment's; positive."""
    value = timeout if timeout is not None else timeout_from_env()
    if not (value > 0 and math.isfinite(value)):
        raise UsageError("--timeout must be a positive, finite number of seconds")
    return value


def add_run_limits(p: Container, *, items: str, concurrency_default: str) -> None:
    """How a run that waits on a model is paced and stopped: in flight at once, a dead endpoint, a budget."""
    p.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help=f"{items} in flight at once (default {concurrency_default}); the report is the same for every N",
    )
    p.add_argument(
        "--stop-after-unavailable",
        type=int,
        default=5,
        metavar="N",
        help="after N unavailable answers in a row (a dead endpoint) ask no more: the rest is unmeasured "
        "at once (default 5; 0 never stops)",
    )
    p.add_argument(
        "--max-run-seconds",
        type=seconds,
        default=None,
        metavar="S",
        help="the whole run's time budget; past it, what is not answered is unmeasured",
    )


def check_run_limits(args: argparse.Namespace) -> None:
    """The values of :func:`add_run_limits`' options, refused before anything runs."""
    if args.concurrency is not None and not 1 <= args.concurrency <= 64:
        raise UsageError(f"--concurrency must be between 1 and 64, got {args.concurrency}")
    if args.max_run_seconds is not None and not args.max_run_seconds > 0:
        raise UsageError(f"--max-run-seconds must be a positive number of seconds, got {args.max_run_seconds}")
    if args.stop_after_unavailable is not None and args.stop_after_unavailable < 0:
        raise UsageError("--stop-after-unavailable must be 0 (never stop) or more")
