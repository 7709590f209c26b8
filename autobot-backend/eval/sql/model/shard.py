"""A run split across machines, as the JSON report holds it: the stamp of one shard, and the note of a merge that
left shards out (issue 39).

A shard's report carries :class:`Shard` (which share it graded, the digest of its ids, and what the merge must find
equal beyond the cohort); the merged report is an ordinary run with neither, unless the merge was told to go on
without a shard (``--allow-incomplete``), which :class:`IncompleteMerge` then says in every output. Both keys are
written only when set, so an unsharded run's report is what it was."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from eval.sql.model.codec import key
from eval.sql.model.outcome import Cost, Verdict


def ids_digest(ids: Iterable[str]) -> str:
    """SHA-256 of question ids, sorted, one per line: the same set gives the same digest in any order."""
    return hashlib.sha256("".join(f"{i}\n" for i in sorted(ids)).encode()).hexdigest()


@dataclass(frozen=True)
class ShardAsk:
    """One ask of a repeated run (``--repeats K``): what the run's cost figures are made of, kept by a shard so
    the merge computes them over every ask as one process would (a question's outcome keeps only their sums)."""

    question_id: str = field(metadata=key("id"))
    verdict: Verdict
    cost: Cost | None = None


@dataclass(frozen=True)
class Shard:
    """This report is shard ``index`` of ``count``: it graded only its share, and records nothing."""

    index: int
    """1-based."""
    count: int
    questions: int
    """How many of the corpus's questions this shard graded."""
    ids: str
    """:func:`ids_digest` of the questions it graded."""
    assignment: str
    """How the corpus was shared out: ``round-robin``, or ``durations <digest>`` (balanced by an earlier report's
    per-question durations, the digest of those durations). Every shard of one run says the same."""
    setup: dict[str, Any]
    """What the merge requires equal beyond the cohort: the engine's version, the harness's code digest, the
    limits and the settings that change a figure but not a verdict."""
    privileged: list[str] = field(default_factory=list, metadata=key(omit="empty"))
    """The run's warnings about database roles that can do more than read (the same in every shard)."""
    extra_answers: list[str] = field(default_factory=list, metadata=key(omit="empty"))
    """Recorded answers whose ids are not in the corpus (the whole corpus's, the same in every shard)."""
    asks: list[ShardAsk] = field(default_factory=list, metadata=key(omit="empty"))
    """With ``--repeats K`` (K > 1): every ask, in question order."""

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class IncompleteMerge:
    """A merge that went on without some shards (``--allow-incomplete``): their questions are ``unmeasured``."""

    count: int
    """The shards the run was split into."""
    merged: list[int]
    """The indices merged."""
    missing: list[int]
    """The indices not given."""
    unmeasured: int
    """Questions in no shard given (each ``unmeasured``, reason ``shard``)."""
