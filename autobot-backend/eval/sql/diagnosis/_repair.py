"""Single edits of the candidate that the database can judge: the evidence that decides a diagnosis.

Each edit takes one piece of the reference into the candidate (a condition, its literal, DISTINCT, a join's
type, ORDER BY and LIMIT, an aggregate, GROUP BY, the SELECT list, WHERE, the tables read) and is run
through the read-only path. What it does to the candidate's result is the evidence:

* ``fixes``: the candidate's result becomes the reference's: this one change would make the answer right,
  so its category is the primary;
* ``no_effect``: the result does not change: the difference is harmless on this database, whatever it
  looks like, and never decides the primary;
* ``changes``: the result changes but is still wrong: the difference matters, and something else too;
* ``fails``: the edited query does not run (or could not be built): no evidence.

Edits (:mod:`._edits`) are tried smallest first (a literal before a clause, a clause before the tables
read), at most :data:`MAX_EDITS` of them, and the search stops at the first that fixes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlglot import exp

from eval.sql.diagnosis._catalog import Catalog
from eval.sql.diagnosis._edits import Edit, edits

MAX_EDITS = 12
"""Edited queries one diagnosis runs at most."""


class Effect(Enum):
    FIXES = "fixes"
    NO_EFFECT = "no_effect"
    CHANGES = "changes"
    FAILS = "fails"


@dataclass(frozen=True)
class Tried:
    edit: Edit
    effect: Effect


Rows = Sequence[Sequence[Any]]
Run = Callable[[str], tuple[Rows, bool] | None]
"""Runs one edited query read-only: its rows and whether they are the reference's; None when it did not run."""
Judge = Callable[[tuple[Rows, bool]], Effect]
"""What a result is to the diagnosis: ``fixes``, ``no_effect`` or ``changes``."""


class Drawn:
    """The edits of one pair of queries (:func:`._edits.edits`), drawn from it once and replayed to whoever iterates
    them again: a pair met again (a corpus that repeats its SQL, an answer given to two paraphrases) is not
    edited anew. Drawn as far as some reader went, so a diagnosis that stops at its first fix pays for no more;
    what the drawing raised is raised again at the same place."""

    def __init__(self, source: Iterator[Edit]):
        self._source: Iterator[Edit] | None = source
        self._drawn: list[Edit] = []
        self._failed: BaseException | None = None
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[Edit]:
        at = 0
        while True:
            with self._lock:
                if at == len(self._drawn):
                    if self._failed is not None:
                        raise self._failed.with_traceback(None)  # its own traceback at each replay
                    if self._source is None:
                        return
                    try:
                        self._drawn.append(next(self._source))
                    except StopIteration:
                        self._source = None
                        return
                    except Exception as exc:
                        self._failed, self._source = exc, None
                        raise
                edit = self._drawn[at]
            yield edit
            at += 1


def tried(
    reference: exp.Expr,
    candidate: exp.Expr,
    dialect: str,
    catalog: Catalog | None,
    run: Run,
    judge: Judge,
    drawn: Iterable[Edit] | None = None,
) -> list[Tried]:
    """The edits of ``candidate`` toward ``reference`` (or ``drawn``, the same edits kept: :class:`Drawn`), run in
    order until one fixes (at most :data:`MAX_EDITS`)."""
    out: list[Tried] = []
    seen: set[str] = set()
    for edit in drawn if drawn is not None else edits(reference, candidate, dialect, catalog):
        if edit.sql in seen:
            continue
        seen.add(edit.sql)
        done = run(edit.sql)
        effect = Effect.FAILS if done is None else judge(done)
        out.append(Tried(edit, effect))
        if effect is Effect.FIXES or len(out) >= MAX_EDITS:
            break
    return out
