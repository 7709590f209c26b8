"""The interval and test formulas, pinned to published values and to exact arithmetic."""

from __future__ import annotations

import pytest

from eval.stats import Z95, bootstrap_rate, mcnemar_exact, paired_bootstrap, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I, method 3
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0),
    ],
)
def test_wilson_interval_matches_the_published_values(k, n, low, high):
    got = wilson(k, n)
    assert got is not None and (round(got[0], 4), round(got[1], 4)) == (low, high)


def test_wilson_bounds_are_exact_at_the_edges_and_none_without_trials():
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(6, 5)


def test_the_95_percent_quantile():
    assert round(Z95, 6) == 1.959964


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (1, 9, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2**10
        (10, 2, 2 * (1 + 12 + 66) / 4096),
        (0, 5, 2 / 32),
        (3, 3, 1.0),
        (0, 0, 1.0),
    ],
)
def test_exact_mcnemar(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact(c, b) == pytest.approx(p, rel=1e-12)  # two-sided: symmetric


def test_paired_bootstrap_is_seeded_and_brackets_the_observed_difference():
    before = [True] * 60 + [False] * 48
    after = [True] * 60 + [False] * 40 + [True] * 8  # 8 more passes
    first = paired_bootstrap(before, after, iterations=2000)
    assert first == paired_bootstrap(before, after, iterations=2000)  # the seed is fixed
    low, high = first
    assert 0 < low < 8 / 108 < high < 0.2
    assert paired_bootstrap(before, before, iterations=500) == (0.0, 0.0)  # no discordant pair: no spread
    assert paired_bootstrap([], []) is None


def test_bootstrap_rate_brackets_the_rate():
    low, high = bootstrap_rate([True] * 65 + [False] * 43, iterations=2000)
    assert low < 65 / 108 < high and high - low < 0.25


def test_exact_mcnemar_holds_past_a_floats_range():
    assert 0 < mcnemar_exact(600, 700) < 0.01  # 1,300 discordant pairs: 2**1300 is no float
