"""Which questions shard K of N grades: a deterministic share of the corpus that no run order can change.

Round-robin by position in the id-sorted list (the i-th id goes to shard ``i mod N + 1``), so each shard holds
every N-th question whatever order the corpus files list them in. Balanced by durations instead, when an earlier
report's per-question times are given: the longest question first goes to the shard with the least time so far
(ties: the lower index; a question the report lacks counts as the median), the greedy longest-first rule. Either
way a question's verdict depends on its id alone (seeds and rotations are the run's, repeats are numbered per
question), so the shards merged are the unsharded run.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from eval.core.errors import UsageError
from eval.sql.model.run import SQLRun

ROUND_ROBIN = "round-robin"
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class ShardSpec:
    """``--shard K/N`` (and ``--shard-durations``): shard ``index`` of ``count``."""

    index: int
    count: int
    durations: Mapping[str, float] = field(default_factory=dict)
    """Question id -> seconds, from an earlier report; empty: round-robin."""

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def assignment(self) -> str:
        """How the corpus is shared out, the same words in every shard of one run (the merge compares them)."""
        if not self.durations:
            return ROUND_ROBIN
        text = json.dumps(sorted(self.durations.items()))
        return f"durations {hashlib.sha256(text.encode()).hexdigest()[:16]}"


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a usage error naming the flag otherwise."""
    found = _SPEC.match(text)
    if found is None:
        raise UsageError(f"--shard takes K/N (shard K of N, e.g. 2/4), got {text!r}")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {text}: K must be between 1 and N, and N at least 1")
    return index, count


def share(ids: Sequence[str], spec: ShardSpec) -> frozenset[str]:
    """The ids shard ``spec`` grades out of ``ids`` (the corpus's, in any order)."""
    ordered = sorted(ids)
    if not spec.durations:
        return frozenset(i for n, i in enumerate(ordered) if n % spec.count == spec.index - 1)
    known = [spec.durations[i] for i in ordered if i in spec.durations]
    fallback = statistics.median(known) if known else 1.0
    load = [0.0] * spec.count
    mine: set[str] = set()
    for qid in sorted(ordered, key=lambda i: (-spec.durations.get(i, fallback), i)):
        target = min(range(spec.count), key=lambda k: (load[k], k))
        load[target] += spec.durations.get(qid, fallback)
        if target == spec.index - 1:
            mine.add(qid)
    return frozenset(mine)


def durations_of(run: SQLRun) -> dict[str, float]:
    """Each question's seconds in an earlier report: the model's time, the answer's and the reference's SQL (the
    parts of a question's time a report keeps); questions without a cost are left out (they count as the median)."""
    out = {}
    for o in run.outcomes:
        if o.cost is not None:
            parts = (o.cost.model_ms, o.cost.candidate_ms, o.cost.reference_ms)
            out[o.question_id] = sum(p for p in parts if p is not None) / 1000
    return out
