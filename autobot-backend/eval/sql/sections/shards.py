"""A run split across machines (issue 39), said before any figure: a shard's report is one share of a run and
records nothing; a merge that went on without shards (``--allow-incomplete``) is not the whole run. A complete
merge is the unsharded run and says nothing here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Block, Line, Place, Property, Section, placed

MERGE_COMMAND = "python -m eval.merge"


def shard_notice(run: SQLRun) -> str | None:
    """The one sentence every output says of a shard or an incomplete merge; None for any other run."""
    if run.shard is not None:
        s = run.shard
        return (
            f"SHARD {s.label}: {s.questions} of the corpus's {run.corpus.size} questions ({s.assignment}; ids "
            f"sha256 {s.ids[:16]}). Its figures are this share's alone and nothing is gated or recorded: merge every "
            f"shard's JSON report with {MERGE_COMMAND}."
        )
    if run.incomplete_merge is not None:
        m = run.incomplete_merge
        missing = ", ".join(f"{k}/{m.count}" for k in m.missing) or "none"
        return (
            f"INCOMPLETE MERGE (--allow-incomplete): {len(m.merged)} of {m.count} shards merged (missing: {missing}); "
            f"{m.unmeasured} question(s) in no merged shard are unmeasured. These are not the whole run's figures."
        )
    return None


class Shards(Section):
    name = "shards"
    places = placed(markdown=Place.LEAD, terminal=Place.LEAD, junit=Place.LEAD, html=Place.LEAD)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        notice = shard_notice(run)
        return [] if notice is None else [f"> **{md.escape(notice)}**", ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        notice = shard_notice(run)
        return [] if notice is None else [Line.of(notice, "bold yellow")]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        notice = shard_notice(run)
        return [] if notice is None else [("shards", notice)]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        notice = shard_notice(run)
        return [] if notice is None else [Annotation("SQL run sharded", notice, "warning")]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any] | None:
        notice = shard_notice(run)
        return None if notice is None else {"notice": notice}
