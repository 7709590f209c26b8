"""Tie-aware grading: every tie-consistent arrangement of the reference passes, and nothing else does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eval.sql.rows import ORDER, VALUE, Ties, compare_with_ties


@st.composite
def ranked(draw):
    """A ranked answer: rows (name, score) sorted by score descending, with ties, and its tie groups."""
    scores = draw(st.lists(st.integers(0, 5), min_size=1, max_size=12))
    rows = sorted(((f"r{i}", s) for i, s in enumerate(scores)), key=lambda r: -r[1])
    groups: list[int] = []
    for i, row in enumerate(rows):
        if i and row[1] == rows[i - 1][1]:
            groups[-1] += 1
        else:
            groups.append(1)
    return rows, tuple(groups)


def shuffled_within(rows, groups, draw):
    out, pos = [], 0
    for size in groups:
        out += draw(st.permutations(rows[pos : pos + size]))
        pos += size
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data(), answer=ranked())
def test_every_tie_consistent_permutation_passes(data, answer):
    rows, groups = answer
    candidate = shuffled_within(rows, groups, data.draw)
    assert compare_with_ties(rows, candidate, Ties(groups), ordered=True).match


@settings(max_examples=300, deadline=None)
@given(data=st.data(), answer=ranked())
def test_moving_a_row_across_a_tie_group_boundary_fails(data, answer):
    rows, groups = answer
    if len(groups) < 2:
        return
    b = data.draw(st.integers(0, len(groups) - 2))  # the boundary after group b
    end = sum(groups[: b + 1])
    candidate = list(rows)
    candidate[end - 1], candidate[end] = candidate[end], candidate[end - 1]  # the two rows across it
    got = compare_with_ties(rows, candidate, Ties(groups), ordered=True)
    assert not got.match and got.reason == ORDER


@settings(max_examples=200, deadline=None)
@given(data=st.data(), answer=ranked(), limit=st.integers(1, 12))
def test_any_choice_of_the_rows_tied_at_the_cut_passes_and_no_other(data, answer, limit):
    rows, _ = answer
    if limit >= len(rows):
        return
    cut_key = rows[limit - 1][1]
    tied = tuple(r for r in rows if r[1] == cut_key)
    before = [r for r in rows[:limit] if r[1] != cut_key]
    keep = limit - len(before)
    groups = Ties(tuple(_groups(rows[:limit])), cut=tied if rows[limit][1] == cut_key else ())
    chosen = data.draw(st.permutations(tied))[:keep]
    for ordered in (True, False):
        candidate = before + list(chosen) if ordered else data.draw(st.permutations(before + list(chosen)))
        assert compare_with_ties(rows[:limit], candidate, groups, ordered=ordered).match
    outsider = next((r for r in rows[limit:] if r[1] != cut_key), None)
    if outsider is not None:  # a row past the cut that does not tie is never a valid choice
        wrong = before + list(chosen[:-1]) + [outsider]
        assert not compare_with_ties(rows[:limit], wrong, groups, ordered=False).match


def _groups(rows):
    groups = []
    for i, row in enumerate(rows):
        if i and row[1] == rows[i - 1][1]:
            groups[-1] += 1
        else:
            groups.append(1)
    return groups


def test_without_ties_the_verdict_is_compare_results():
    rows = [("a", 3), ("b", 2)]
    assert compare_with_ties(rows, [("b", 2), ("a", 3)], None, ordered=True).reason == ORDER
    assert compare_with_ties(rows, [("a", 3), ("c", 2)], Ties((1, 1)), ordered=True).reason == VALUE


def test_a_tie_break_is_named_on_the_match():
    got = compare_with_ties([("a", 2), ("b", 2)], [("b", 2), ("a", 2)], Ties((2,)), ordered=True)
    assert got.match and got.tie_break and "order among rows that tie" in got.detail
    assert not compare_with_ties([("a", 2), ("b", 2)], [("a", 2), ("b", 2)], Ties((2,)), ordered=True).tie_break


def test_tolerance_still_applies_inside_a_tie_group():
    rows = [("a", 2, 10.004), ("b", 2, 20.0)]
    assert compare_with_ties(rows, [("b", 2, 20.001), ("a", 2, 10.0)], Ties((2,)), ordered=True).match
    assert not compare_with_ties(rows, [("b", 2, 20.01), ("a", 2, 10.0)], Ties((2,)), ordered=True).match


def test_ties_learned_on_other_rows_never_loosen_a_verdict():
    assert not compare_with_ties([("a", 2), ("b", 2)], [("b", 2), ("a", 2)], Ties((3,)), ordered=True).match
