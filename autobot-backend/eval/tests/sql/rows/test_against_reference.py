"""The fast comparison against an obviously correct reference: per-value rules written from the spec, and
brute-force or augmenting-path bipartite matching, on random cases."""

from __future__ import annotations

import math
import random
from datetime import date, datetime, time
from decimal import Decimal
from fractions import Fraction
from itertools import permutations

import pytest

from eval.sql.rows import (
    COLUMN_ORDER,
    ORDER,
    ROW_COUNT,
    VALUE,
    compare_results,
)
from eval.sql.rows._multiset import same_multiset

NAN = float("nan")
INF = float("inf")


# --- the fast algorithm against an obviously correct reference -----------------------------------


def _ref_temporal(value):
    if isinstance(value, str):
        if len(value) >= 5 and value[2] == ":":
            return ("time", time.fromisoformat(value))
        if len(value) >= 10 and value[4] == "-" and value[7] == "-" and value[:4].isdigit():
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        else:
            return None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return ("instant", value)
        return ("day", value.date()) if value.time() == time() else ("timestamp", value)
    if isinstance(value, date):
        return ("day", value)
    if isinstance(value, time):
        return ("time", value)
    return None


def ref_equal(x, y, decimals):
    """The policy, value by value, written from the spec without the module's machinery."""
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    numbers = (int, float, Decimal)
    if isinstance(x, numbers) or isinstance(y, numbers):
        if not (isinstance(x, numbers) and isinstance(y, numbers)):
            return False
        if x != x or y != y:
            return x != x and y != y
        if x in (INF, -INF) or y in (INF, -INF):
            return x == y
        if decimals is None:
            return Fraction(x) == Fraction(y)
        return ref_numbers_agree(Fraction(x), Fraction(y), decimals)
    tx, ty = _ref_temporal(x), _ref_temporal(y)
    if tx is not None or ty is not None:
        return tx is not None and ty is not None and tx[0] == ty[0] and tx[1] == ty[1]
    return type(x) is type(y) and x == y


NOISE = Fraction(1, 10**6)


def ref_numbers_agree(x: Fraction, y: Fraction, d: int) -> bool:
    """The methodology's rule, word for word, in exact arithmetic."""

    def place(v):  # d, or a small value's first significant digit (read from the value as a double)
        size = abs(float(v)) * (1 + 1e-6)
        if abs(float(v)) <= 1e-9 or size >= 10.0**-d:
            return d
        p = d + 1
        while size < 10.0**-p:
            p += 1
        return p

    def reach(p):  # half a unit at p, widened for float noise
        half = Fraction(1, 2 * 10**p)
        return half * (1 + NOISE) + min(Fraction(1, 2**44) * min(abs(x), abs(y)), half / 2)

    def rounded(v):  # a number of d decimals, or zero
        return abs(float(v)) <= 1e-9 or abs(v * 10**d - round(v * 10**d)) <= NOISE / 2

    px, py, gap = place(x), place(y), abs(x - y)
    if gap <= reach(max(px, py)):
        return True
    if (px > d) == (py > d):  # neither small (compared at d already), or both
        return False
    return gap <= reach(d) and rounded(y if px > d else x)


def ref_rows_equal(a, b, decimals):
    return len(a) == len(b) and all(ref_equal(x, y, decimals) for x, y in zip(a, b))


def ref_multiset_match(expected, actual, decimals):
    """Is there a perfect matching? Brute force on tiny inputs, Kuhn's augmenting paths otherwise."""
    if len(expected) != len(actual):
        return False
    if len(expected) <= 6:
        return any(
            all(ref_rows_equal(e, actual[j], decimals) for e, j in zip(expected, perm))
            for perm in permutations(range(len(actual)))
        )
    partner: dict[int, int] = {}
    edges = [[j for j, a in enumerate(actual) if ref_rows_equal(e, a, decimals)] for e in expected]

    def augment(i, seen):
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in partner or augment(partner[j], seen):
                    partner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(expected)))


POOL = [
    0,
    0.0,
    1,
    1.0,
    -0.004,
    0.004,
    0.0049,
    0.005,
    0.0051,
    0.006,
    0.009,
    0.01,
    0.014,
    Decimal("0.005"),
    Decimal("0.0049"),
    Decimal("1.00"),
    True,
    False,
    None,
    NAN,
    INF,
    "a",
    "A",
    "1",
    "",
    "NULL",
    date(2024, 1, 31),
    datetime(2024, 1, 31),
    datetime(2024, 1, 31, 13, 45),
    "2024-01-31",
    "2024-01-31 00:00:00",
    "2024-01-31 13:45:00",
    "13:45:00",
    "13:45",
    time(13, 45),
    b"a",
]
NUMBERS = [0, 0.0, -0.004, 0.004, 0.0049, 0.005, 0.0051, 0.006, 0.009, 0.01, 0.014, Decimal("0.005"), 1, 1.0]


def _random_case(rng: random.Random):
    width = rng.randint(1, 3)
    pools = [rng.choice([POOL, NUMBERS, NUMBERS]) for _ in range(width)]
    expected = [tuple(rng.choice(pool) for pool in pools) for _ in range(rng.randint(0, 5))]
    actual = list(expected)
    rng.shuffle(actual)
    for _ in range(rng.choice([0, 0, 1, 2])):
        if actual:
            i, col = rng.randrange(len(actual)), rng.randrange(width)
            row = list(actual[i])
            row[col] = rng.choice(pools[col])
            actual[i] = tuple(row)
    if rng.random() < 0.1 and actual:
        actual.pop()
    return expected, actual


def ref_permuted_match(expected, actual, ordered, decimals):
    """Some other order of the candidate's columns matches (the reference rule for `column_order`)."""
    if not expected or not actual:
        return False
    width = len(expected[0])
    for perm in permutations(range(width)):
        if perm == tuple(range(width)):
            continue
        moved = [tuple(row[j] for j in perm) for row in actual]
        if ordered and all(ref_rows_equal(e, a, decimals) for e, a in zip(expected, moved)):
            return True
        if not ordered and ref_multiset_match(expected, moved, decimals):
            return True
    return False


def test_random_small_cases_agree_with_brute_force_matching():
    rng = random.Random(20261129)
    outcomes = {True: 0, False: 0}
    for case in range(600):
        expected, actual = _random_case(rng)
        decimals = rng.choice([2, 2, 1, 0, None])
        ordered = rng.random() < 0.25
        result = compare_results(expected, actual, ordered=ordered, decimals=decimals)
        if len(expected) != len(actual):
            want = (False, ROW_COUNT)
        elif ordered:
            in_order = all(ref_rows_equal(e, a, decimals) for e, a in zip(expected, actual))
            as_multiset = ref_multiset_match(expected, actual, decimals)
            want = (True, None) if in_order else (False, ORDER if as_multiset else VALUE)
        else:
            want = (True, None) if ref_multiset_match(expected, actual, decimals) else (False, VALUE)
        if want == (False, VALUE) and ref_permuted_match(expected, actual, ordered, decimals):
            want = (False, COLUMN_ORDER)
        assert (result.match, result.reason) == want, (case, expected, actual, ordered, decimals, result.detail)
        outcomes[result.match] += 1
    assert min(outcomes.values()) > 100, outcomes  # both verdicts are well exercised


SPELLINGS = [
    "a",
    "b",
    "2024-01-31",
    "2024-01-31 00:00:00",
    "2024-01-31T00:00",
    "2024-01-31T00:00:00.00",
    date(2024, 1, 31),
    datetime(2024, 1, 31),
    None,
    True,
]
"""One day spelled every way (and a few other values): partners found by hashing must include them all."""


@pytest.mark.parametrize("duplicates", [False, True], ids=["distinct-rows", "with-duplicates"])
def test_random_larger_cases_agree_with_augmenting_path_matching(duplicates):
    # Enough rows that equal rows are cancelled by hashing first, then the neighbourhood is re-settled.
    rng = random.Random(7 + duplicates)
    for case in range(60):
        n = rng.randint(20, 60)
        texts = [rng.choice(SPELLINGS) for _ in range(n)]
        expected = [(t, rng.choice(NUMBERS[:11]), i if not duplicates else i % 5) for i, t in enumerate(texts)]
        actual = list(expected)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(n)
            actual[i] = (actual[i][0], rng.choice(NUMBERS[:11]), actual[i][2])
        rng.shuffle(actual)
        result = compare_results(expected, actual)
        assert result.match is ref_multiset_match(expected, actual, 2), (case, result.detail)


@pytest.mark.parametrize(
    ("expected", "actual", "ordered", "at"),
    [
        ([(1, "a"), (2, "b")], [(1, "a"), (2, "c")], True, (1, 1, 1)),
        ([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], True, (0, 0, None)),
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (9, "b"), (1, "a")], False, (1, 1, 0)),
    ],
)
def test_a_mismatch_says_where_it_is_for_a_report_to_point_at(expected, actual, ordered, at):
    got = compare_results(expected, actual, ordered=ordered)
    assert not got.match and got.at is not None
    assert (got.at.expected_row, got.at.actual_row, got.at.column) == at


def test_a_shape_mismatch_points_at_no_cell():
    assert compare_results([(1,), (2,)], [(1,)]).at is None


def test_random_columns_near_every_bound_agree_with_augmenting_path_matching():
    # One numeric column (settled by sorting, or around small values by a flow), values placed at the
    # bounds of the rule: half-way values, their roundings, float noise, large magnitudes, small values.
    rng = random.Random(20261204)
    outcomes = {True: 0, False: 0}
    for case in range(300):
        decimals = rng.choice([0, 1, 2, 2, 3])
        unit = 10.0**-decimals
        base = rng.choice([0.0, 1.0, 34.76, 1e9, rng.uniform(-1e4, 1e4)])
        pool = [base + k * unit / 2 for k in range(-3, 4)] + [unit * f for f in (0.2, 0.4, 0.6, 0.9)]
        pool += [math.nextafter(v, math.inf) for v in pool[:3]] + [round(v, decimals) for v in pool[3:6]]
        n = rng.randint(2, 7)
        expected = [(rng.choice(pool),) for _ in range(n)]
        actual = [(rng.choice(pool),) if rng.random() < 0.4 else row for row in expected]
        rng.shuffle(actual)
        got = compare_results(expected, actual, decimals=decimals)
        assert got.match is ref_multiset_match(expected, actual, decimals), (case, decimals, expected, actual)
        outcomes[got.match] += 1
    assert min(outcomes.values()) > 60, outcomes


@pytest.mark.parametrize(
    ("expected", "actual", "match"),
    [
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2, "b")], True),
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (1, "a")], False),  # a second copy of a taken row
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (9, "z"), (9, "z")], False),  # a foreign row twice
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2.001, "b")], True),  # within the tolerance
        ([(1, "a"), (2, "b"), (3, "c")], [(3, "c"), (1, "a"), (2.1, "b")], False),
        ([(i, "x") for i in range(30)], [(i + 100, "x") for i in range(30)], False),  # many left over
    ],
)
def test_distinct_rows_settled_with_one_set_give_the_verdict_of_every_row_counted(expected, actual, match):
    """Issue 40: rows of each side taken out of one set (not a set of each side); the duplicates and the left-overs
    beyond a few go the way they went before, and the verdict is the brute force's."""
    assert compare_results(expected, actual).match is match is ref_multiset_match(expected, actual, 2)


def test_the_left_overs_of_distinct_rows_keep_each_sides_order():
    """The rows left over come in the reference's order and the candidate's, whatever order the set taking them out
    holds them in (text hashes differ from one process to the next): what a wrong answer's detail names first."""
    expected = [(f"row-{i:03d}", i) for i in range(200)]
    gone = [expected[i] for i in (150, 3, 77, 120, 41, 9, 199, 60)]
    foreign = [(f"new-{i}", -i) for i in (5, 1, 7, 3, 8, 2, 6, 4)]
    actual = [row for row in expected if row not in gone] + foreign
    random.Random(7).shuffle(actual)
    settled = same_multiset(expected, actual, None)
    assert not settled.match
    assert list(settled.unmatched_expected) == [row for row in expected if row in gone]
    assert list(settled.unmatched_actual) == [row for row in actual if row in foreign]


def test_the_kinds_a_fetch_read_keep_true_apart_from_one():
    """Issue 40: each column's types come from the fetch when it read them; a boolean column against an integer one
    is still compared canonically (Python's True == 1 is not followed)."""
    kinds = ((frozenset({bool}), frozenset({str})), (frozenset({int}), frozenset({str})))
    got = compare_results([(True, "a"), (False, "b")], [(1, "a"), (0, "b")], kinds=kinds)
    assert not got.match and got.reason == VALUE
    same = ((frozenset({int}), frozenset({str})), (frozenset({int}), frozenset({str})))
    assert compare_results([(1, "a"), (0, "b")], [(0, "b"), (1, "a")], kinds=same).match
