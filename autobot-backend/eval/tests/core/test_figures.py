"""One formatter for every figure (``eval.core.figures``): what it writes, and that no output writes its own."""

from __future__ import annotations

import doctest
import re
from fractions import Fraction
from pathlib import Path

import pytest

from eval.core import figures
from eval.core.figures import interval, money, number, of, pct, points, points_interval, ratio, seconds

EVAL = Path(__file__).resolve().parents[2]


def test_the_examples_in_the_docstrings_hold():
    failed, tried = doctest.testmod(figures, globs={"Fraction": Fraction, **vars(figures)})
    assert tried >= 9 and failed == 0


@pytest.mark.parametrize(
    ("value", "written"),
    [(0.59259, "59.3%"), (Fraction(37, 40), "92.5%"), (0.0, "0.0%"), (1.0, "100.0%"), (None, "n/a"), (0.00049, "0.0%")],
)
def test_a_rate_is_a_percentage_to_a_tenth(value, written):
    assert pct(value) == written


def test_an_interval_is_both_ends_in_percent_and_missing_is_not_a_number():
    assert interval([0.4982, 0.6803]) == "49.8-68.0%"
    assert interval((Fraction(0), Fraction(177, 500))) == "0.0-35.4%"
    assert interval(None) == interval([]) == "n/a"


def test_differences_are_signed_points():
    assert points(0.0) == "+0.0 points" and points(-0.031) == "-3.1 points"
    assert points_interval([-0.125, 0.0]) == "-12.5 to +0.0 points"


def test_counts_times_and_money():
    assert of(64, 108) == "64/108"
    assert number(1234567) == "1,234,567" and number(None) == "n/a"
    assert seconds(61234.0) == "61.2 s" and seconds(0.4) == "0.0 s"
    assert money(1.23456) == "1.2346" and ratio(2.0) == "2"


def test_the_two_intervals_say_which_is_which_and_why_a_bootstrap_can_be_a_point():
    assert "Wilson" in figures.WILSON and "bootstrap" in figures.BOOTSTRAP
    assert "count alone" in figures.WILSON_NOTE and "never a single point" in figures.WILSON_NOTE
    assert "resamples of the questions" in figures.BOOTSTRAP_NOTE and "0.0-0.0%" in figures.BOOTSTRAP_NOTE


# Writing a rate by hand (``x * 100`` then a format) anywhere but the formatter is what this module replaced.
_BY_HAND = re.compile(r"\*\s*100\s*:[+]?\.\d+f\}|def _(pct|ci)\(")


def test_no_output_formats_a_rate_or_an_interval_of_its_own():
    offenders = [
        f"{path.relative_to(EVAL)}:{n}: {line.strip()}"
        for path in sorted(EVAL.rglob("*.py"))
        if "tests" not in path.parts and path.name != "figures.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _BY_HAND.search(line)
    ]
    assert offenders == []


def test_the_check_above_can_fail():
    assert _BY_HAND.search('return "n/a" if rate is None else f"{rate * 100:.1f}%"')
    assert _BY_HAND.search("def _ci(interval):")
