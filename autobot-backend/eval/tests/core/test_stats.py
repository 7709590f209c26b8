"""The interval and test formulas, pinned to published values and to exact arithmetic."""

from __future__ import annotations

import math

import pytest

from eval.core.stats import (
    Z95,
    average_ranks,
    bootstrap_rate,
    cohen_kappa,
    holm,
    mcnemar_exact,
    paired_bootstrap,
    rate_rounded,
    spearman_rho,
    wilson,
)


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


def test_a_rate_is_kept_to_four_places_and_is_none_without_a_trial():
    assert rate_rounded(81, 263) == 0.308
    assert rate_rounded(2, 3) == 0.6667
    assert rate_rounded(0, 0) is None


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


# -- Spearman's rho and Cohen's kappa -------------------------------------------------------------


def test_spearman_without_ties_matches_the_textbook_example():
    # Wikipedia, "Spearman's rank correlation coefficient", worked example: IQ against hours of TV a week,
    # rho = -29/165 (about -0.1758).
    iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
    tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
    assert spearman_rho(iq, tv) == pytest.approx(-29 / 165, abs=1e-15)


def test_spearman_with_ties_uses_average_ranks():
    # scipy.stats.spearmanr's documented example: 0.8207826816681233. By hand: ranks of y are
    # 1, 2, 3.5, 5, 3.5 (the two 7s share 3.5), so rho = 8 / sqrt(10 * 9.5).
    assert spearman_rho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(0.8207826816681233, abs=1e-15)
    assert spearman_rho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(8 / math.sqrt(95), abs=1e-15)
    # the shortcut 1 - 6*sum(d^2)/(n(n^2-1)) gives 0.825 here: wrong with ties
    assert round(spearman_rho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 3) != 0.825


def test_spearman_is_undefined_for_one_pair_or_a_constant_side():
    assert spearman_rho([1], [2]) is None
    assert spearman_rho([1, 2, 3], [4, 4, 4]) is None
    assert spearman_rho([1, 2, 3], [30, 20, 10]) == -1.0
    with pytest.raises(ValueError):
        spearman_rho([1, 2], [1])


def test_average_ranks_share_the_mean_of_the_ranks_they_span():
    assert average_ranks([10, 20, 20, 20, 5]) == [2, 4, 4, 4, 1]


def _raters(table):
    """Two raters' labels from a 2x2 agreement table [[yes/yes, yes/no], [no/yes, no/no]] (rater a first)."""
    (yy, yn), (ny, nn) = table
    a = ["yes"] * (yy + yn) + ["no"] * (ny + nn)
    b = ["yes"] * yy + ["no"] * yn + ["yes"] * ny + ["no"] * nn
    return a, b


@pytest.mark.parametrize(
    ("table", "kappa"),
    [
        # Wikipedia, "Cohen's kappa", the worked example: 50 grant proposals, p_o = 0.7, p_e = 0.5
        ([[20, 5], [10, 15]], 0.4),
        # ... and its "same agreement, different kappa" pair: p_o = 0.6 both, kappa 0.1304 and 0.2593
        ([[45, 15], [25, 15]], 0.06 / 0.46),
        ([[25, 35], [5, 35]], 0.14 / 0.54),
    ],
)
def test_cohen_kappa_matches_the_published_examples(table, kappa):
    assert cohen_kappa(*_raters(table)) == pytest.approx(kappa, abs=1e-12)


def test_cohen_kappa_over_three_bands_by_exact_arithmetic():
    # p_o = 4/6; p_e = (2*2 + 2*1 + 2*3) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 1/2
    a = ["good", "good", "partial", "partial", "poor", "poor"]
    b = ["good", "poor", "partial", "good", "poor", "poor"]
    assert cohen_kappa(a, b) == 0.5
    assert cohen_kappa(a, a) == 1.0


def test_cohen_kappa_is_undefined_without_items_or_when_chance_is_certain():
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["good"] * 3, ["good"] * 3) is None  # p_e = 1: 0/0
    with pytest.raises(ValueError):
        cohen_kappa(["good"], [])


@pytest.mark.parametrize(
    ("raw", "adjusted"),
    [
        # Wikipedia, "Holm-Bonferroni method", worked example: H4 (0.005) and H1 (0.01) rejected at 0.05
        ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]),
        # the step-down's running maximum: 3 * 0.02 = 0.06 carries to the next, whose own 2 * 0.025 is 0.05
        ([0.02, 0.025, 0.5], [0.06, 0.06, 0.5]),
        ([0.3, 0.6], [0.6, 0.6]),  # 2 * 0.3, then 1 * 0.6: equal
        ([0.4, 0.9], [0.8, 0.9]),
        ([0.7, 0.9], [1.0, 1.0]),  # 2 * 0.7 capped at 1
        ([0.04], [0.04]),  # one test: no correction
        ([], []),
    ],
)
def test_holm_adjusted_p_values_by_exact_arithmetic(raw, adjusted):
    assert holm(raw) == pytest.approx(adjusted, abs=1e-15)


def test_holm_rejects_fewer_than_no_correction_and_more_than_bonferroni():
    raw = [0.012, 0.013, 0.04, 0.2]  # uncorrected: three below 0.05
    bonferroni = [min(1.0, 4 * p) for p in raw]
    assert sum(p < 0.05 for p in raw) == 3
    assert sum(p < 0.05 for p in bonferroni) == 1  # 0.048 only
    assert [p < 0.05 for p in holm(raw)] == [True, True, False, False]  # 0.048, 3 * 0.013 = 0.039
    assert all(p <= a <= b for p, a, b in zip(raw, holm(raw), bonferroni))
    with pytest.raises(ValueError):
        holm([0.5, 1.5])


def test_the_docstring_examples_hold():
    import doctest

    from eval.core import stats

    failed, attempted = doctest.testmod(stats)
    assert failed == 0 and attempted >= 6
