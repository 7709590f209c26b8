"""How much of a figure is noise: intervals and tests over per-question outcomes, as exact formulas.

Each is a few lines of textbook arithmetic, written out with the standard library and pinned by
tests to published values rather than taken from a statistics package: the suites need these few
and nothing else, and an exact formula is easier to audit than a dependency.

* :func:`wilson`: the Wilson score interval of a proportion (Wilson 1927), which stays inside
  [0, 1] and behaves at 0 and n, unlike the normal approximation;
* :func:`mcnemar_exact`: McNemar's test on paired outcomes, exact: the two-sided binomial test of
  the discordant pairs against p = 1/2;
* :func:`paired_bootstrap`: a percentile bootstrap interval of the difference of two paired
  proportions, resampling questions (the unit that was sampled), with a fixed seed;
* :func:`bootstrap_rate`: the same for one proportion;
* :func:`spearman_rho`: Spearman's rank correlation, as Pearson's correlation of the ranks, tied
  values sharing their average rank (so it is right with ties, where 1 - 6 sum d^2 / n(n^2 - 1) is not);
* :func:`cohen_kappa`: Cohen's (1960) unweighted kappa, agreement between two raters beyond chance;
* :func:`holm`: Holm's (1979) step-down adjusted p-values, for a family of tests (every pair of models).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from fractions import Fraction
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% normal quantile, 1.959963984540054."""
BOOTSTRAP_ITERATIONS = 10_000
BOOTSTRAP_SEED = 20261201


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes / trials``; None with no trials.

    Example:
        >>> [round(x, 4) for x in wilson(81, 263)]  # Newcombe (1998), table I, method 3
        [0.2553, 0.3662]
    """
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in 0..{trials}, got {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def wilson_rounded(successes: int, trials: int) -> list[float] | None:
    """The 95% Wilson interval as reports keep it: ``[low, high]`` to four places (None without a trial)."""
    return interval_rounded(wilson(successes, trials))


def interval_rounded(interval: tuple[float, float] | None) -> list[float] | None:
    """An interval as reports keep it: ``[low, high]`` to four places (None stays None)."""
    return None if interval is None else [round(interval[0], 4), round(interval[1], 4)]


def rate_rounded(successes: int, trials: int) -> float | None:
    """``successes / trials`` as reports keep a rate: to four places (None without a trial)."""
    return round(successes / trials, 4) if trials else None


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs (1.0 when there are none).

    Example:
        >>> round(mcnemar_exact(1, 9), 6)
        0.021484
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, float(Fraction(2 * tail, 2**n)))  # exact: 2**n outgrows a float past n = 1023


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples.sort()
    k = len(samples)
    return samples[int(0.025 * (k - 1))], samples[math.ceil(0.975 * (k - 1))]


def paired_bootstrap(
    before: Sequence[bool], after: Sequence[bool], iterations: int = BOOTSTRAP_ITERATIONS, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float] | None:
    """95% percentile interval of ``mean(after) - mean(before)``, resampling the pairs; None when empty."""
    if len(before) != len(after):
        raise ValueError("paired outcomes must be of equal length")
    n = len(before)
    if n == 0:
        return None
    rng = random.Random(seed)
    diffs = [int(a) - int(b) for b, a in zip(before, after)]
    samples = [sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(iterations)]
    return _percentiles(samples)


def bootstrap_rate(
    outcomes: Sequence[bool], iterations: int = BOOTSTRAP_ITERATIONS, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float] | None:
    """95% percentile interval of ``mean(outcomes)``, resampling questions; None when empty."""
    n = len(outcomes)
    if n == 0:
        return None
    rng = random.Random(seed)
    values = [int(x) for x in outcomes]
    samples = [sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(iterations)]
    return _percentiles(samples)


def average_ranks(values: Sequence[float]) -> list[Fraction]:
    """1-based ranks of ``values``; tied values share the mean of the ranks they span.

    Example:
        >>> [str(r) for r in average_ranks([5, 6, 7, 8, 7])]
        ['1', '2', '7/2', '5', '7/2']
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks: list[Fraction] = [Fraction(0)] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = Fraction(start + end + 2, 2)  # the mean of ranks start+1 .. end+1
        for k in range(start, end + 1):
            ranks[order[k]] = shared
        start = end + 1
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho of paired values; None with fewer than two pairs or when either side is constant.

    Example:
        >>> round(spearman_rho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 10)  # scipy.stats.spearmanr's documented example
        0.8207826817
    """
    if len(x) != len(y):
        raise ValueError("paired values must be of equal length")
    n = len(x)
    if n < 2:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    mx, my = sum(rx, Fraction(0)) / n, sum(ry, Fraction(0)) / n
    cov = sum(((a - mx) * (b - my) for a, b in zip(rx, ry)), Fraction(0))
    vx = sum(((a - mx) ** 2 for a in rx), Fraction(0))
    vy = sum(((b - my) ** 2 for b in ry), Fraction(0))
    if vx == 0 or vy == 0:
        return None
    return float(cov) / math.sqrt(vx * vy)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's unweighted kappa of two raters' labels of the same items: (p_o - p_e) / (1 - p_e).

    None with no items, or when chance agreement is already certain (both raters used one and the
    same label throughout: p_e = 1, and kappa is 0/0).

    Example:
        >>> cohen_kappa(["y"] * 25 + ["n"] * 25, ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15)
        0.4
    """
    if len(a) != len(b):
        raise ValueError("two raters must label the same items")
    n = len(a)
    if n == 0:
        return None
    observed = Fraction(sum(x == y for x, y in zip(a, b)), n)
    labels = set(a) | set(b)
    chance = sum((Fraction(list(a).count(k), n) * Fraction(list(b).count(k), n) for k in labels), Fraction(0))
    if chance == 1:
        return None
    return float((observed - chance) / (1 - chance))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the order given: with the m p-values sorted
    ascending, the i-th (1-based) becomes ``min(1, max over j <= i of (m - j + 1) * p_(j))``. Rejecting
    where the adjusted value is below alpha keeps the chance of any false rejection in the family at
    most alpha, whatever the dependence between the tests (Bonferroni's guarantee, never less power).

    Example:
        >>> holm([0.01, 0.04, 0.03, 0.005])  # Wikipedia's worked example: H4 and H1 rejected at 0.05
        [0.03, 0.06, 0.06, 0.02]
    """
    if any(not 0 <= p <= 1 for p in pvalues):
        raise ValueError("p-values must be in [0, 1]")
    m = len(pvalues)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda k: pvalues[k])):
        running = max(running, min(1.0, float(Fraction(pvalues[i]) * (m - rank))))
        adjusted[i] = running
    return adjusted
