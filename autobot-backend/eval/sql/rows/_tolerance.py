"""The numeric tolerance: when two finite numbers are the same answer at a question's ``decimals``.

An analyst reading a result to ``d`` decimals takes two numbers as one answer when they differ by
at most half a unit in the ``d``-th place, so either rounding of a half-way value agrees with it
(``ROUND(34.765, 2)`` is 34.77 on one engine and 34.76 on another, and both are right). That alone
would blur small values: at 2 decimals 0.002 and 0.006 are within half a cent of each other (and
of 0.0109), though one is three times the other. So a value smaller than one unit in the ``d``-th
place is read to its first significant digit (0.006 to the thousandth), and a pair is compared at
the finer place of the two; a value rounded to ``d`` decimals (0.01 for 0.006) still agrees with
what it rounds, since rounding to the declared decimals is what the question asks for.

The rule, with ``h(p)`` half a unit in the ``p``-th decimal place:

* the *place* of a number is ``d``, or, for ``1e-9 < |v| < 10**-d``, the place of its first
  significant digit (0.006 -> 3); a value within ``1e-9`` of zero is zero (float noise, the
  self-check's lints' rule);
* ``a`` and ``b`` agree when ``|a - b| <= h(p)`` at ``p``, the finer place of the two; or when one
  of them is a ``d``-place number (zero, 0.01, 34.77) and ``|a - b| <= h(d)``: it is the other
  rounded to the declared decimals.

Float noise: every bound ``h(p)`` is ``h(p) * (1 + 1e-6) + min(2**-44 * m, h(p) / 2)``, ``m`` the
smaller magnitude of the two. A float computed at a half-way value (34.764999999999993 for 34.765,
or ``1e9 + 0.005``, which no double spells) is at it. The second term grows with the smaller
magnitude only, which keeps what matching needs: where no value is small, agreeing pairs never
cross (``x1 <= x2``, ``y1 <= y2``, ``x1 ~ y2`` and ``x2 ~ y1`` give ``x1 ~ y1`` and ``x2 ~ y2``),
so a column of numbers is settled by sorting (``_matching.line_matching``); and two values that
agree are at most one ``bucket`` apart. The relation is symmetric, not transitive, never a hash key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

NOISE = Fraction(1, 10**6)
"""Every bound is widened by this fraction of itself."""
RELATIVE = Fraction(1, 2**44)
"""... and by this fraction of the smaller magnitude (about 500 ulps of a double), up to half the bound."""
ZERO = 1e-9
"""Magnitudes at or below this are zero: float noise, the self-check's rule (nine significant digits)."""
_FINEST = 9
"""The finest place a small value is read to: the place of :data:`ZERO`."""
_RELATIVE_F = float(RELATIVE)
_EXACT_INT = 2**53
"""Whole numbers below this in size are exactly a float."""

Number = int | float | Decimal


@dataclass(frozen=True)
class Tolerance:
    """Numbers at ``decimals`` places under the rule of this module (``within``)."""

    decimals: int
    scale: int = field(init=False, repr=False)
    """``10 ** decimals``."""
    _halves: dict[int, tuple[Fraction, Fraction, float, float]] = field(init=False, repr=False)
    """Per place: the bound without the magnitude term, its cap, and both as floats."""
    _small_below: float = field(init=False, repr=False)
    _thresholds: tuple[tuple[float, int], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        d = self.decimals
        halves = {}
        for p in range(d, max(d, _FINEST) + 1):
            half = Fraction(1, 2 * 10**p)
            halves[p] = (half * (1 + NOISE), half / 2, float(half * (1 + NOISE)), float(half / 2))
        widen = 1 + float(NOISE)
        set_ = object.__setattr__
        set_(self, "scale", 10**d)
        set_(self, "_halves", halves)
        # A value is small when, widened by the noise, it is still below one unit of the declared place.
        set_(self, "_small_below", 10.0**-d / widen if d < _FINEST else 0.0)
        set_(self, "_thresholds", tuple((10.0**-p / widen, p) for p in range(d + 1, _FINEST + 1)))

    def place(self, x: Number) -> int:
        """The decimal place ``x`` is read to: ``decimals``, or a small value's first significant digit.

        Example:
            >>> Tolerance(2).place(0.006), Tolerance(2).place(0.0109), Tolerance(2).place(1e-12)
            (3, 2, 2)
        """
        if type(x) is int:
            return self.decimals  # a whole number is zero or at least 1
        size = abs(float(x))
        if not ZERO < size < self._small_below:
            return self.decimals
        for threshold, p in self._thresholds:
            if size >= threshold:
                return p
        return _FINEST

    def is_small(self, x: Number) -> bool:
        """Whether ``x`` is read finer than the declared place (where ``within`` is not a distance)."""
        return self.place(x) > self.decimals

    def rounded(self, x: Number) -> bool:
        """Whether ``x`` is a ``decimals``-place number (zero, 0.01, 34.77), up to :data:`NOISE`."""
        if type(x) is int or abs(float(x)) <= ZERO:
            return True
        scaled = Fraction(x) * self.scale
        return abs(scaled - round(scaled)) <= NOISE / 2

    def bound(self, place: int, x: Number, y: Number) -> Fraction:
        """The largest gap at which ``x`` and ``y`` agree when read to ``place``, exactly."""
        reach, cap, _, _ = self._halves[place]
        return reach + min(RELATIVE * min(abs(Fraction(x)), abs(Fraction(y))), cap)

    def within(self, x: Number, y: Number) -> bool:
        """Whether two finite numbers are the same answer at this precision (exact at every bound).

        Example:
            >>> t = Tolerance(2)
            >>> t.within(34.765, 34.77), t.within(34.765, 34.76), t.within(0.006, 0.002), t.within(0.006, 0.01)
            (True, True, False, True)
        """
        if type(x) is int and type(y) is float and -_EXACT_INT < x < _EXACT_INT:
            x = float(x)  # exactly the same number
        elif type(y) is int and type(x) is float and -_EXACT_INT < y < _EXACT_INT:
            y = float(y)
        if type(x) is float and type(y) is float:
            decided = self._within_fast(x, y)
            if decided is not None:
                return decided
        return self._within_exactly(x, y)

    def _within_fast(self, x: float, y: float) -> bool | None:
        """``within`` in floating point; None where rounding error could decide it (the computed gap
        and bound are each off by at most a few ulps)."""
        ax, ay = abs(x), abs(y)
        gap, least = abs(x - y), min(ax, ay)
        _, _, reach_f, cap_f = self._halves[self.decimals]
        widest = reach_f + min(_RELATIVE_F * least, cap_f)
        error = math.ulp(max(ax, ay)) + 4 * math.ulp(widest)
        if gap - error > widest:
            return False  # past the widest bound there is
        small_x, small_y = ZERO < ax < self._small_below, ZERO < ay < self._small_below
        if not (small_x or small_y):
            return True if gap + error < widest else None
        _, _, reach_p, cap_p = self._halves[max(self.place(x), self.place(y))]
        at_place = reach_p + min(_RELATIVE_F * least, cap_p)
        if gap + error < at_place:
            return True
        if gap - error <= at_place:
            return None
        if small_x and small_y:
            return False  # two small values agree at their place or not at all
        if gap + error >= widest:
            return None
        return self._rounded_fast(y if small_x else x)

    def _rounded_fast(self, x: float) -> bool | None:
        scaled = x * self.scale
        off, error = abs(scaled - round(scaled)), 4 * math.ulp(scaled)
        if off + error < float(NOISE) / 2:
            return True
        if off - error > float(NOISE) / 2:
            return False
        return None

    def _within_exactly(self, x: Number, y: Number) -> bool:
        gap = abs(Fraction(x) - Fraction(y))
        px, py = self.place(x), self.place(y)
        if gap <= self.bound(max(px, py), x, y):
            return True
        if (px > self.decimals) == (py > self.decimals):  # neither small (so compared at d), or both
            return False
        # One value is small, the other is not: agreed if that one is the small one rounded to the declared place.
        return gap <= self.bound(self.decimals, x, y) and self.rounded(y if px > self.decimals else x)

    def beyond(self, x: Number, y: Number) -> bool:
        """Whether ``x`` and ``y`` are further apart than the widest bound: never ``within``, at any place."""
        if type(x) is float and type(y) is float:
            ax, ay = abs(x), abs(y)
            _, _, reach_f, cap_f = self._halves[self.decimals]
            widest = reach_f + min(_RELATIVE_F * min(ax, ay), cap_f)
            gap, error = abs(x - y), math.ulp(max(ax, ay)) + 4 * math.ulp(widest)
            if gap - error > widest:
                return True
            if gap + error < widest:
                return False
        return abs(Fraction(x) - Fraction(y)) > self.bound(self.decimals, x, y)

    def bucket(self, x: Number) -> int:
        """``floor(x * 10**decimals)``, exactly: two values ``within`` each other are at most one bucket apart."""
        return x * self.scale if type(x) is int else math.floor(Fraction(x) * self.scale)
