"""How a figure is written, once, for every output: rates, intervals, points, counts, times, money.

Every renderer (Markdown, the terminal, HTML, JUnit, the GitHub summary, the gate's details, the
run-vs-run comparison, the trend, the record) formats through these, so a rate can never read
59.3% in one output and 59.28% or 0.593 in another. Nothing here computes a figure: the figures
come from the run model (:mod:`eval.sql.model`) or the tool that owns them; this is only how they
are written.

The two intervals a report can show are named where they are shown (:data:`WILSON`,
:data:`BOOTSTRAP`), and explained by :data:`WILSON_NOTE` and :data:`BOOTSTRAP_NOTE`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from fractions import Fraction

Rate = float | Fraction

NA = "n/a"
"""What a figure that does not exist (no measured case, no endpoint report) is written as."""

WILSON = "95% Wilson CI"
"""The label of a Wilson score interval: a proportion's, from its count alone."""
BOOTSTRAP = "95% bootstrap CI"
"""The label of a percentile bootstrap interval: resampling questions."""
WILSON_NOTE = "95% Wilson CI: how far a rate can be off, from its count alone; never a single point, even at 0% or 100%"
BOOTSTRAP_NOTE = (
    "95% bootstrap CI: 10,000 resamples of the questions' majority verdicts; at a 0% (or 100%) majority "
    "rate every resample is the same, so it is 0.0-0.0% (100.0-100.0%) where the Wilson interval is not"
)


def pct(rate: Rate | None, digits: int = 1) -> str:
    """``0.5932`` -> ``59.3%``; None -> ``n/a``.

    Example:
        >>> pct(0.59259), pct(Fraction(1, 3)), pct(None), pct(0.5, 0)
        ('59.3%', '33.3%', 'n/a', '50%')
    """
    return NA if rate is None else f"{float(rate) * 100:.{digits}f}%"


def interval(ci: Sequence[Rate] | None) -> str:
    """A 95% interval of a rate, ``[0.498, 0.68]`` -> ``49.8-68.0%``; None or empty -> ``n/a``.

    Example:
        >>> interval([0.4982, 0.6803]), interval([0.0, 0.0]), interval(None)
        ('49.8-68.0%', '0.0-0.0%', 'n/a')
    """
    if not ci:
        return NA
    return f"{float(ci[0]) * 100:.1f}-{float(ci[1]) * 100:.1f}%"


def points(value: Rate | None) -> str:
    """A difference of two rates in percentage points, signed: ``0.031`` -> ``+3.1 points``.

    Example:
        >>> points(0.031), points(-0.5), points(None)
        ('+3.1 points', '-50.0 points', 'n/a')
    """
    return NA if value is None else f"{float(value) * 100:+.1f} points"


def points_interval(ci: Sequence[Rate] | None) -> str:
    """A 95% interval of a difference in points: ``[-0.02, 0.05]`` -> ``-2.0 to +5.0 points``.

    Example:
        >>> points_interval([-0.02, 0.05]), points_interval(None)
        ('-2.0 to +5.0 points', 'n/a')
    """
    if not ci:
        return NA
    return f"{float(ci[0]) * 100:+.1f} to {float(ci[1]) * 100:+.1f} points"


def of(num: int, den: int) -> str:
    """A count out of its denominator, ``64/108``: the figure a rate is made of.

    Example:
        >>> of(64, 108)
        '64/108'
    """
    return f"{num}/{den}"


def number(value: float | None, unit: str = "") -> str:
    """A count or a measurement with thousands separators, ``12,345 ms``, float noise dropped (a sum's
    ``64608.11000000004`` is ``64,608.11``); None -> ``n/a``.

    Example:
        >>> number(12345), number(12.5, " ms"), number(None, " ms"), number(64608.11000000004)
        ('12,345', '12.5 ms', 'n/a', '64,608.11')
    """
    if value is None:
        return NA
    if isinstance(value, float):
        value = float(f"{value:.{NOISE_DIGITS}g}")
    return f"{value:,}{unit}"


def millis(ms: float | None) -> str:
    """A duration in milliseconds as a person reads it: three significant digits under 100 ms, whole
    milliseconds above (a timer's ``0.434605000009469`` is ``0.435 ms``).

    Example:
        >>> millis(0.434605000009469), millis(12.3456), millis(1234.5), millis(0.0), millis(None)
        ('0.435 ms', '12.3 ms', '1,234 ms', '0 ms', 'n/a')
    """
    if ms is None:
        return NA
    if abs(ms) >= 100:
        return f"{ms:,.0f} ms"
    return f"{float(f'{ms:.3g}'):g} ms"


def seconds(ms: float | None) -> str:
    """Milliseconds as seconds to a tenth, ``12345.6`` -> ``12.3 s``.

    Example:
        >>> seconds(12345.6), seconds(None)
        ('12.3 s', 'n/a')
    """
    return NA if ms is None else f"{ms / 1000:,.1f} s"


def money(value: float | None) -> str:
    """Money at the configured prices (no currency: the prices carry none), to four places.

    Example:
        >>> money(0.0123456), money(None)
        ('0.0123', 'n/a')
    """
    return NA if value is None else f"{value:.4f}"


def ratio(value: float | None) -> str:
    """A ratio as measured (an efficiency figure), trailing zeros dropped: ``1.5``, ``0.25``.

    Example:
        >>> ratio(1.5), ratio(0.25), ratio(None)
        ('1.5', '0.25', 'n/a')
    """
    return NA if value is None else f"{value:g}"


_DECIMAL = re.compile(r"-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)")
_NOISY = re.compile(r"(?<![\w.])-?\d+\.\d{6,}(?![\w.])")
NOISE_DIGITS = 15
"""Significant digits a double holds reliably: past them a sum's digits are float noise."""
ZERO_BELOW = 1e-9
"""A value smaller than this is zero (float noise), as in the comparison's rule."""


def at_precision(text: str, decimals: int | None) -> str:
    """A result's value as shown (text) written at the question's precision: a decimal number to
    ``decimals`` places, or a smaller one (under one unit in that place) to its first significant
    digit, the place the comparison reads it to; any other text as it is, with float noise dropped.

    Example:
        >>> at_precision("64608.11000000004", 2), at_precision("0.006", 2), at_precision("34.765", 2)
        ('64608.11', '0.006', '34.77')
        >>> at_precision("'a'", 2), at_precision("12", 2), at_precision("-1e-12", 2), at_precision("0.5", None)
        ("'a'", '12', '0.00', '0.5')
    """
    if decimals is None or not _DECIMAL.fullmatch(text):
        return denoised(text)
    value = float(text)
    place = decimals
    if ZERO_BELOW < abs(value) < 10.0**-decimals:
        place = math.ceil(-math.log10(abs(value)) - 1e-12)
    shown = f"{value:.{place}f}"
    return shown[1:] if shown.startswith("-") and not shown.strip("-0.") else shown


def denoised(text: str) -> str:
    """``text`` with each decimal number of more digits than a double holds written to
    :data:`NOISE_DIGITS` significant digits (a float sum's ``64608.11000000004`` is ``64608.11``); no
    other character changes.

    Example:
        >>> denoised("returned 1 row(s), first (77013.06000000001)"), denoised("0.1234567")
        ('returned 1 row(s), first (77013.06)', '0.1234567')
    """

    def short(match: re.Match[str]) -> str:
        written = f"{float(match.group()):.{NOISE_DIGITS}g}"
        return match.group() if "e" in written else written

    return _NOISY.sub(short, text)
