"""The search for a database on which a passing answer and its reference disagree.

For one pass: neighbours of the graded databases (each rotation's in turn) are drawn
(:mod:`~eval.sql.counterexample.neighbours`), repaired and checked against every constraint and stated rule
(:mod:`~eval.sql.counterexample.constraints`), written on the graded engine
(:mod:`~eval.sql.counterexample.writing`) and judged by the grader (:mod:`~eval.sql.counterexample.judging`),
until one refutes the pass or the budget is spent. A refuting neighbour is shrunk
(:mod:`~eval.sql.counterexample.shrinking`) and written out as a runnable script
(:mod:`~eval.sql.counterexample.script`).

The draws are seeded by the question id and the SHA-256 of the answer's SQL, so the same answer to the same
question on the same databases is searched the same way on every run: a run repeats. A :class:`Searcher`
keeps what one process read (each graded database's rows, read once) and the neighbours' own read-only
executor: one per process where the writer writes every neighbour at one URL (SQLite, in memory), else one per
neighbour, closed and its database taken down once judged.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from eval.sql.corpus.questions import Question
from eval.sql.counterexample import judging
from eval.sql.counterexample.budget import Budget
from eval.sql.counterexample.constraints import repair, violation
from eval.sql.counterexample.data import Base, TooBig, Working, read_base
from eval.sql.counterexample.edits import Edit, describe
from eval.sql.counterexample.judging import GradeOn, Judged, LearnTies
from eval.sql.counterexample.neighbours import Proposer
from eval.sql.counterexample.reading import read_focus
from eval.sql.counterexample.script import script
from eval.sql.counterexample.shrinking import shrink
from eval.sql.counterexample.writing import Refused, Writer
from eval.sql.fixtures.rules import Rule
from eval.sql.model.counterexample import Refutation, Search
from services.readonly.execute import Execution, ReadOnlySQL

BROKE_A_RULE = "broke a constraint or a stated rule"
REFUSED_BY_ENGINE = "the engine refused to write it"
UNCHANGED = "changed nothing"
ATTEMPTS = 20
"""Draws per neighbour before the search gives up on finding one that keeps every rule."""


def seed_of(question_id: str, sql: str) -> int:
    """The draws' seed: the question id and the SHA-256 of the answer's SQL."""
    digest = hashlib.sha256(sql.encode("utf-8", "surrogatepass")).hexdigest()
    return int(hashlib.sha256(f"{question_id}\0{digest}".encode()).hexdigest()[:16], 16)


@dataclass
class Searcher:
    """One process's search: its budget, the rules per fixture, how ties are learned, where neighbours go."""

    budget: Budget
    learn: LearnTies
    make_writer: Callable[[Path], Writer] | None
    """Makes the process's writer in a folder of its own; None: no neighbour can be written (a note says so)."""
    workdir: Path
    rules: Mapping[str, Sequence[Rule]] = field(default_factory=dict)
    """Fixture name -> its stated rules (:data:`eval.sql.fixtures.rules.RULES`)."""
    timeout_s: float = 10.0
    row_cap: int | None = None
    cannot_write: str = "the run cannot write a database beside this one"
    _bases: dict[str, Base | str] = field(default_factory=dict)
    _pid: int = -1
    _db: ReadOnlySQL | None = None
    _writer: Writer | None = None
    _written: str | None = None
    """The URL the process's last neighbour was written at."""

    def _process(self) -> tuple[ReadOnlySQL, Writer | None]:
        """The neighbours' database and writer of this process (a forked child makes its own)."""
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._db = (
                ReadOnlySQL(timeout_s=self.timeout_s)
                if self.row_cap is None
                else ReadOnlySQL(timeout_s=self.timeout_s, row_cap=self.row_cap)
            )
            made = None if self.make_writer is None else self.make_writer(self.workdir / f"p{self._pid}")
            self._writer = made
        assert self._db is not None
        return self._db, self._writer

    def close(self) -> None:
        """Close this process's neighbours' connections and its writer's (a PostgreSQL writer holds a pool)."""
        if self._db is not None:
            self._db.close()
        closing = getattr(self._writer, "close", None)
        if closing is not None:
            closing()
        self._db, self._writer, self._pid, self._written = None, None, -1, None

    def base(self, url: str) -> Base | str:
        found = self._bases.get(url)
        if found is None:
            try:
                found = read_base(url)
            except TooBig as exc:
                found = str(exc)
            self._bases[url] = found
        return found

    def search(
        self,
        q: Question,
        sql: str,
        urls: Sequence[str],
        references: Sequence[str],
        shown: Sequence[Execution],
        grade: GradeOn,
    ) -> Search:
        """Search neighbours of ``urls`` (a question's rotations) for one on which ``sql`` is wrong; ``references``:
        the reference's SQL as graded, then its alternatives'; ``shown``: the reference's result per rotation."""
        db, writer = self._process()
        if writer is None:
            return Search(self.budget.label, 0, note=f"not searched: {self.cannot_write}")
        bases = [self.base(u) for u in urls]
        if any(isinstance(b, str) for b in bases):
            why = next(b for b in bases if isinstance(b, str))
            return Search(self.budget.label, 0, note=f"not searched: {why}")
        rules = self.rules.get(q.fixture or "", ())
        rng = random.Random(seed_of(q.id, sql))
        dialect = _dialect(urls[0])  # from the URL: opening the graded file again here may clash (DuckDB)
        proposers = [
            Proposer(
                b,
                read_focus(b.schema, [*references, sql], dialect, _shown(s)),
                random.Random(rng.getrandbits(64)),
                rules=rules,
            )
            for b, s in zip(bases, shown)
            if isinstance(b, Base)
        ]
        discarded: Counter[str] = Counter()
        tried, started = 0, time.monotonic()
        for attempt in range(ATTEMPTS * (self.budget.neighbours or 1_000_000)):
            if self.budget.spent(tried, started):
                break
            n = attempt % len(proposers)
            edits = proposers[n].propose()
            made = _neighbour(proposers[n].base, edits, rules)
            if isinstance(made, str):
                if made != UNCHANGED:
                    discarded[made] += 1
                continue
            tried += 1
            judged = self._judge(q, sql, references, made, db, writer, grade)
            if judged.outcome == judging.REFUTES:
                refutation = self._shrunk(q, sql, references, proposers[n].base, edits, rules, db, writer, grade)
                found = refutation(tried, n + 1)
                return Search(self.budget.label, tried, dict(discarded), refuted=found)
            if judged.outcome != judging.AGREES:
                discarded[judged.outcome] += 1
        return Search(self.budget.label, tried, dict(discarded))

    def _judge(
        self,
        q: Question,
        sql: str,
        references: Sequence[str],
        w: Working,
        db: ReadOnlySQL,
        writer: Writer,
        grade: GradeOn,
    ) -> Judged:
        try:
            url = writer.write(w)
        except Refused:
            return Judged(REFUSED_BY_ENGINE)
        if writer.reuses_url and self._written not in (None, url):  # the writer moved on: its old URL is gone
            db.forget(self._written)
        self._written = url
        try:
            return judging.judge(q, sql, references, url, db, self.learn, grade)
        finally:
            if not writer.reuses_url:  # else the executor stays, and reads the next neighbour written there
                db.forget(url)
            writer.discard(url)

    def _shrunk(
        self,
        q: Question,
        sql: str,
        references: Sequence[str],
        base: Base,
        edits: list[Edit],
        rules: Sequence[Rule],
        db: ReadOnlySQL,
        writer: Writer,
        grade: GradeOn,
    ) -> Callable[[int, int], Refutation]:
        last: dict[str, Judged] = {}

        def refutes(chosen: list[Edit]) -> Working | None:
            made = _neighbour(base, chosen, rules)
            if isinstance(made, str):
                return None
            judged = self._judge(q, sql, references, made, db, writer, grade)
            if judged.outcome != judging.REFUTES:
                return None
            last["judged"] = judged
            return made

        kept, _ = shrink(edits, refutes, list(base.schema.tables))
        w = refutes(kept)
        if w is None:  # the shrunk edits no longer refute (a statement timed out, say): the neighbour as found
            kept, w = list(edits), refutes(list(edits))
        made_w = w if w is not None else _neighbour(base, edits, rules)
        assert isinstance(made_w, Working)
        graded = last["judged"].graded if "judged" in last else None
        engine = base.url.split(":", 1)[0].split("+", 1)[0]
        lines = tuple(describe(e, made_w) for e in kept if e in edits)
        counts = {t: len(made_w.rows(t)) for t in base.schema.tables}

        def made(found_at: int, rotation: int) -> Refutation:
            return Refutation(
                found_at=found_at,
                rotation=rotation,
                edits=lines,
                rows={t: n for t, n in counts.items() if n},
                detail=graded.detail if graded is not None else "",
                excerpt=graded.excerpt if graded is not None else None,
                script=script(made_w, q.id, references[0], sql, engine),
                engine=engine,
            )

        return made


def _dialect(url: str) -> str:
    """The sqlglot dialect of a database URL's engine."""
    backend = sa.engine.make_url(url).get_backend_name()
    return {"postgresql": "postgres"}.get(backend, backend)


def _shown(result: Execution) -> list[object]:
    return [v for row in result.rows[:50] for v in row]


def _neighbour(base: Base, edits: Sequence[Edit], rules: Sequence[Rule]) -> Working | str:
    """The neighbour ``edits`` make of ``base``, repaired; or why it is not one (a broken rule, no change)."""
    w = Working(base)
    for edit in edits:
        edit.apply(w)
    if w.is_base():
        return UNCHANGED
    repair(w, rules)
    broken = violation(w, rules)
    return BROKE_A_RULE if broken else w
