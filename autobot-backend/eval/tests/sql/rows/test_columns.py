"""Column order: the reference's columns in another order are named, and accepted only when asked."""

from __future__ import annotations

import pytest

from eval.sql.rows import COLUMN_COUNT, COLUMN_ORDER, VALUE, Ties, compare_results, compare_with_ties

# --- accepted under column_order: any (the Spider convention) ------------------------------------

EQUAL_UNDER_ANY = [
    # The plainest case: a breakdown with its measure first.
    pytest.param([("web", 3), ("store", 5)], [(3, "web"), (5, "store")], {}, (1, 0), id="two-columns-swapped"),
    # Any permutation, not only a swap: the candidate's columns 3, 1, 2 hold the reference's 1, 2, 3.
    pytest.param([(1, "a", 2.5)], [(2.5, 1, "a")], {}, (1, 2, 0), id="three-columns-rotated"),
    # Ordered: the rows must still come in the reference's order, columns reordered.
    pytest.param([("a", 1), ("b", 2)], [(1, "a"), (2, "b")], {"ordered": True}, (1, 0), id="ordered-rows-in-order"),
    # The tolerance still applies once the columns are lined up.
    pytest.param([(10.001, "x")], [("x", 10.0)], {}, (1, 0), id="tolerance-after-reordering"),
    # Two numeric columns: only the assignment that pairs whole rows passes.
    pytest.param([(1, 10), (2, 20)], [(10, 1), (20, 2)], {}, (1, 0), id="same-class-columns-paired-by-rows"),
]


@pytest.mark.parametrize(("expected", "actual", "options", "permutation"), EQUAL_UNDER_ANY)
def test_reordered_columns_match_under_column_order_any(expected, actual, options, permutation):
    got = compare_results(expected, actual, column_order="any", **options)
    assert (got.match, got.column_permutation) == (True, permutation), got.detail
    assert "accepted by column_order: any" in got.detail


# --- wrong by default, and wrong under any order when more than the order differs ---------------

UNEQUAL = [
    # Positional by default: the right columns in another order are wrong, and the reason says so.
    pytest.param([("web", 3)], [(3, "web")], {}, COLUMN_ORDER, id="positional-swap-is-column-order"),
    pytest.param([(1, "a", 2.5)], [(2.5, 1, "a")], {}, COLUMN_ORDER, id="positional-rotation-is-column-order"),
    # A permutation and a wrong number: the permutation is not the only difference, so it is `value`.
    pytest.param([("web", 3)], [(4, "web")], {"column_order": "any"}, VALUE, id="any-order-with-a-wrong-value"),
    # Each column's values appear in some candidate column, but no reordering rebuilds the rows.
    pytest.param([(1, "a"), (2, "b")], [("b", 1), ("a", 2)], {"column_order": "any"}, VALUE, id="rows-scrambled"),
    # Ordered: reordered columns with the rows out of order are still wrong.
    pytest.param(
        [("a", 1), ("b", 2)], [(2, "b"), (1, "a")], {"ordered": True, "column_order": "any"}, VALUE, id="ordered-wrong"
    ),
    # Another column count is never a permutation: extra or missing columns are `column_count`.
    pytest.param([("web", 3)], [(3, "web", 1)], {"column_order": "any"}, COLUMN_COUNT, id="extra-column"),
    # True is never 1, reordered or not.
    pytest.param([(True, 1)], [(True, True)], {"column_order": "any"}, VALUE, id="boolean-is-not-a-number"),
]


@pytest.mark.parametrize(("expected", "actual", "options", "reason"), UNEQUAL)
def test_unequal_column_orders_fail_with_their_reason(expected, actual, options, reason):
    got = compare_results(expected, actual, **options)
    assert (got.match, got.reason) == (False, reason), got.detail


def test_column_order_reason_names_the_permutation():
    got = compare_results([("web", 3, 1.5)], [(1.5, "web", 3)])
    assert got.column_permutation == (1, 2, 0)
    assert got.detail == (
        "the candidate's columns are the reference's in another order (reference columns 1, 2, 3 are "
        "candidate columns 2, 3, 1): columns are compared by position (column_order: any accepts a permutation)"
    )


def test_positional_match_never_searches_a_permutation():
    # Two equal columns: the identity matches, so no permutation is reported.
    got = compare_results([(1, 1)], [(1, 1)], column_order="any")
    assert (got.match, got.column_permutation) == (True, None)


def test_a_tie_break_with_reordered_columns_is_column_order_by_default():
    # The reference ranks b and c equal; the candidate picks the other order and swaps the columns.
    ref, ties = [("a", 3), ("b", 2), ("c", 2)], Ties(groups=(1, 2))
    got = compare_with_ties(ref, [(3, "a"), (2, "c"), (2, "b")], ties, ordered=True)
    assert (got.match, got.reason, got.column_permutation) == (False, COLUMN_ORDER, (1, 0)), got.detail


def test_a_tie_break_with_reordered_columns_passes_under_any():
    ref, ties = [("a", 3), ("b", 2), ("c", 2)], Ties(groups=(1, 2))
    got = compare_with_ties(ref, [(3, "a"), (2, "c"), (2, "b")], ties, ordered=True, column_order="any")
    assert (got.match, got.tie_break, got.column_permutation) == (True, True, (1, 0)), got.detail


def test_a_choice_at_the_cut_with_reordered_columns_passes_under_any():
    # LIMIT 2 cuts inside a tie of b, c, d: the candidate kept d, with its columns swapped.
    ref, ties = [("a", 3), ("b", 2)], Ties(groups=(1, 1), cut=(("b", 2), ("c", 2), ("d", 2)))
    got = compare_with_ties(ref, [(3, "a"), (2, "d")], ties, column_order="any")
    assert (got.match, got.column_permutation) == (True, (1, 0)), got.detail


def test_an_unknown_column_order_is_refused():
    with pytest.raises(ValueError, match="column_order must be 'positional' or 'any'"):
        compare_results([(1,)], [(1,)], column_order="sorted")  # type: ignore[arg-type]
