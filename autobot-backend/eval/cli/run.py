"""``python -m eval.run [--suite trajectory|sql|turns] ...``: one command line per suite.

A tiny pre-parse reads ``--suite`` (trajectory when absent); that suite's own parser then reads
the whole command line. A flag it does not know is looked up in the other suites' parsers: a flag
of another suite is a usage error naming the suite it belongs to (exit 2), so a flag is never
silently ignored by the suite that runs. ``--help`` shows the chosen suite's options and lists the
suites. What escapes a run becomes its exit code in :func:`eval.cli.entry.entry_point`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eval.cli.entry import entry_point
from eval.cli.options import DEFAULT_SUITE, PROG, SUITES, TITLES


@dataclass(frozen=True)
class Suite:
    build_parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]


def load_suite(name: str) -> Suite:
    """A suite's parser and run, imported only when that suite is asked for."""
    if name == "sql":
        from eval.cli import sql

        return Suite(sql.build_parser, sql.run_sql)
    if name == "turns":
        from eval.cli import turns

        return Suite(turns.build_parser, turns.run_turns)
    if name == "trajectory":
        from eval.cli import trajectory

        return Suite(trajectory.build_parser, trajectory.run_trajectory)
    raise ValueError(f"no suite {name!r}")


def chosen_suite(argv: Sequence[str]) -> str:
    """``--suite``'s value, the default when absent; an unknown suite is argparse's usage error (exit 2)."""
    pre = argparse.ArgumentParser(prog=PROG, add_help=False, allow_abbrev=False)
    pre.add_argument("--suite", choices=tuple(SUITES), default=DEFAULT_SUITE)
    known, _ = pre.parse_known_args(argv)
    return str(known.suite)


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every flag a parser knows (``--json``, ``--help``, ...)."""
    return {flag for action in parser._actions for flag in action.option_strings}


def owners(flag: str, other_than: str) -> list[str]:
    """The suites, other than ``other_than``, whose parser knows ``flag``."""
    return [name for name in SUITES if name != other_than and flag in option_strings(load_suite(name).build_parser())]


def _suite_phrase(name: str) -> str:
    default = ", the default" if name == DEFAULT_SUITE else ""
    return f"the {TITLES[name]} (--suite {name}{default})"


def refusal(flag: str, belongs_to: Sequence[str], suite: str) -> str:
    """The usage error for a flag of another suite: whose it is, and which suite this run is."""
    default = " (the default)" if suite == DEFAULT_SUITE else ""
    return f"{flag} belongs to {' and '.join(map(_suite_phrase, belongs_to))}, not to the {TITLES[suite]}{default}"


def parse(argv: Sequence[str]) -> tuple[Suite, argparse.Namespace]:
    """The chosen suite and its arguments; a usage error is argparse's exit 2 (``SystemExit``)."""
    name = chosen_suite(argv)
    suite = load_suite(name)
    parser = suite.build_parser()
    args, unknown = parser.parse_known_args(argv)
    for token in unknown:
        flag = token.split("=", 1)[0]
        if flag.startswith("-") and (belongs_to := owners(flag, name)):
            parser.error(refusal(flag, belongs_to, name))
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return suite, args


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    suite, args = parse(list(sys.argv[1:] if argv is None else argv))
    return suite.run(args)


if __name__ == "__main__":
    sys.exit(main())
