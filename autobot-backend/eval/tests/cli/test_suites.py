"""One command line per suite: ``python -m eval.run --suite trajectory|sql|turns`` parses with that suite's
own parser, so a flag of another suite is exit 2 naming the suite it belongs to, never a flag ignored.

The refusals are checked for every option of every suite's parser, read from the parsers themselves:
an option added to a suite later is covered without touching this file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from eval.cli import options
from eval.cli.entry import entry_point
from eval.cli.run import load_suite, main, option_strings
from eval.core.errors import HarnessError
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK

BACKEND = Path(__file__).resolve().parents[3]
PARSERS = {name: load_suite(name).build_parser() for name in options.SUITES}


def _takes_value(suite: str, flag: str) -> bool:
    [action] = [a for a in PARSERS[suite]._actions if flag in a.option_strings]
    return action.nargs != 0


def _foreign_flags() -> list[tuple[str, str, str]]:
    """(flag, a suite it belongs to, a suite it does not belong to), for every option of every suite."""
    out = []
    for owner, parser in PARSERS.items():
        for flag in sorted(option_strings(parser)):
            for other in options.SUITES:
                if flag not in option_strings(PARSERS[other]):
                    out.append((flag, owner, other))
    return out


FOREIGN = _foreign_flags()


def test_the_parsers_are_what_each_suite_takes():
    flags = {name: option_strings(p) for name, p in PARSERS.items()}
    shared = {"--suite", "--json", "--markdown", "--fail-on-regression", "--timeout", "--help"}
    assert all(shared <= f for f in flags.values())
    assert {"--epsilon", "--recorded-dir", "--evaluator"} <= flags["trajectory"] - flags["sql"] - flags["turns"]
    assert {"--record-baseline", "--force", "--allow-off-suite", "--repeats", "--statement-timeout", "--judge"} <= (
        flags["sql"] - flags["trajectory"] - flags["turns"]
    )
    assert {"--turns", "--rejudge", "--labels"} <= flags["turns"] - flags["trajectory"] - flags["sql"]
    # the model-run limits are the SQL and turns suites'; the trajectory suite's replay has none
    assert {"--concurrency", "--stop-after-unavailable", "--max-run-seconds"} <= (
        (flags["sql"] & flags["turns"]) - flags["trajectory"]
    )
    assert len(FOREIGN) > 60  # the exhaustive test below is not vacuous


@pytest.mark.parametrize(("flag", "owner", "suite"), FOREIGN, ids=[f"{s}:{f}@{o}" for f, o, s in FOREIGN])
def test_every_flag_of_another_suite_is_refused_naming_its_suite(flag, owner, suite, capsys):
    argv = ["--suite", suite, flag] + (["1"] if _takes_value(owner, flag) else [])
    assert main(argv) == EXIT_CANNOT_JUDGE
    captured = capsys.readouterr()
    assert f"error: {flag} belongs to " in captured.err
    assert f"(--suite {owner}" in captured.err and f"not to the {options.TITLES[suite]}" in captured.err
    assert captured.out == ""  # refused before anything ran


@pytest.mark.parametrize("flag", sorted({f for f, _, suite in FOREIGN if suite == "trajectory"}), ids=lambda flag: flag)
def test_without_suite_the_trajectory_suite_refuses_other_suites_flags(flag, capsys):
    owner = next(o for f, o, s in FOREIGN if f == flag and s == "trajectory")
    assert main([flag] + (["1"] if _takes_value(owner, flag) else [])) == EXIT_CANNOT_JUDGE
    err = capsys.readouterr().err
    assert f"{flag} belongs to " in err and "not to the trajectory suite (the default)" in err


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eval.run", *args], cwd=BACKEND, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--record-baseline"],
        ["--force"],
        ["--allow-off-suite"],
        ["--repeats", "3"],
        ["--statement-timeout", "5"],
        ["--stop-after-unavailable", "2"],
    ],
    ids=lambda args: args[0],
)
def test_sql_flags_without_suite_sql_are_exit_2_not_a_trajectory_run(args):
    """Each of these ran the trajectory suite and exited 0, the flag ignored."""
    proc = _cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert f"{args[0]} belongs to the SQL suite (--suite sql" in proc.stderr
    assert "Trajectory eval report" not in proc.stdout and proc.stdout == ""


def test_trajectory_flags_with_suite_sql_are_exit_2_not_a_sql_run():
    """This ran the SQL suite and exited 0, --epsilon and --recorded-dir ignored."""
    proc = _cli("--suite", "sql", "--epsilon", "0.3", "--recorded-dir", "/nonexistent")
    assert proc.returncode == 2, proc.stderr
    assert "--epsilon belongs to the trajectory suite (--suite trajectory, the default), not to the SQL suite" in (
        proc.stderr
    )
    assert proc.stdout == ""


def test_a_flag_of_no_suite_is_unrecognised(capsys):
    assert main(["--suite", "sql", "--no-such-flag"]) == EXIT_CANNOT_JUDGE
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["--record", "x"], ["--suite", "sql", "--eps", "0.3"], ["--suite", "turns", "--turn", "t.jsonl"]],
    ids=["record", "eps", "turn"],
)
def test_abbreviations_are_refused(argv, capsys):
    """``--record`` would otherwise be the trajectory suite's --recorded-dir, not a SQL suite's --record-*."""
    assert main(argv) == EXIT_CANNOT_JUDGE
    assert "unrecognized arguments" in capsys.readouterr().err


@pytest.mark.parametrize("suite", list(options.SUITES))
def test_help_shows_the_suites_own_options_and_lists_the_suites(suite, capsys):
    assert main(["--suite", suite, "--help"]) == EXIT_OK
    out = capsys.readouterr().out
    mine = {"trajectory": "--epsilon", "sql": "--record-baseline", "turns": "--rejudge"}
    assert mine[suite] in out
    assert all(flag not in out for name, flag in mine.items() if name != suite)
    assert "Suites: trajectory:" in out and "sql:" in out and "turns:" in out and "Exit codes" in out


def test_the_turns_suite_takes_max_run_seconds_as_documented(capsys):
    """docs/eval/judge.md lists it; the deny-list refused it."""
    assert main(["--suite", "turns", "--max-run-seconds", "0", "--turns", "t.jsonl"]) == EXIT_CANNOT_JUDGE
    assert "--max-run-seconds: '0' is not a positive, finite number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "abc"])
@pytest.mark.parametrize("option", ["--timeout", "--statement-timeout", "--max-run-seconds"])
def test_a_number_of_seconds_is_positive_and_finite(capsys, option, value):
    """Issue 38 point 6: ``--timeout nan`` was accepted (NaN compares false with every deadline)."""
    assert main(["--suite", "sql", option, value]) == EXIT_CANNOT_JUDGE
    assert f"{option}: {value!r} is not a positive, finite number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (HarnessError("bad input"), "error: bad input"),
        (KeyboardInterrupt(), "error: interrupted"),
        (RuntimeError("bug"), "internal error (a bug in the harness)"),
        (ModuleNotFoundError("no module named x"), "the harness failed to import"),
    ],
    ids=["harness-error", "ctrl-c", "crash", "import"],
)
def test_every_entry_point_maps_what_escapes_to_2(raised, message, capsys):
    @entry_point
    def failing() -> int:
        raise raised

    assert failing() == EXIT_CANNOT_JUDGE
    assert message in capsys.readouterr().err


def test_argparse_exits_are_returned_not_raised():
    @entry_point
    def helped() -> int:
        raise SystemExit(0)

    @entry_point
    def misused() -> int:
        raise SystemExit(2)

    assert (helped(), misused()) == (0, 2)
