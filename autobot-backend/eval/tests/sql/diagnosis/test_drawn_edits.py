"""A pair's edits are drawn once and replayed (``_repair.Drawn``): the same edits in the same order to every reader,
drawn only as far as some reader went, and a failure of the drawing raised again where it happened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from eval.sql.diagnosis._edits import Edit
from eval.sql.diagnosis._repair import Drawn
from eval.sql.model.diagnosis import Category


def _edit(n: int) -> Edit:
    return Edit(Category.OTHER, "WHERE", f"edit {n}", f"SELECT {n}")


def test_every_reader_gets_the_same_edits_and_the_source_is_drawn_once() -> None:
    drawn_from: list[int] = []

    def source() -> Iterator[Edit]:
        for n in range(5):
            drawn_from.append(n)
            yield _edit(n)

    drawn = Drawn(source())
    first = []
    for e in drawn:  # a reader that stops at its "fix", the third edit
        first.append(e)
        if len(first) == 3:
            break
    assert drawn_from == [0, 1, 2]  # no further than that reader went
    assert list(drawn) == [_edit(n) for n in range(5)]
    assert list(drawn) == [_edit(n) for n in range(5)]
    assert drawn_from == [0, 1, 2, 3, 4]


def test_a_failure_of_the_drawing_is_raised_again_at_the_same_place() -> None:
    def source() -> Iterator[Edit]:
        yield _edit(0)
        raise RecursionError("nested too deeply")

    drawn = Drawn(source())
    for _ in range(2):
        seen = []
        with pytest.raises(RecursionError):
            for e in drawn:
                seen.append(e)
        assert seen == [_edit(0)]


def test_a_failure_replayed_many_times_does_not_grow_its_traceback() -> None:
    import traceback

    def source() -> Iterator[Edit]:
        raise RecursionError("nested too deeply")
        yield _edit(0)  # pragma: no cover - makes it a generator

    drawn = Drawn(source())
    caught: BaseException | None = None
    for _ in range(50):
        try:
            list(drawn)
        except RecursionError as exc:
            caught = exc
    assert caught is not None and len(list(traceback.walk_tb(caught.__traceback__))) < 10
