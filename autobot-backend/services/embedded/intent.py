"""Reading a linked question into a :class:`~.plan.Plan`: which link is the measure, which the grouping,
which a filter, what is ranked, compared or counted.

The reading is positional and conservative: a cue word governs the link that follows it
("by" + a column is a grouping, "how many" + a table is a count), and a link no cue claims
becomes a filter (a value, a flag, a NULL test) or, failing that, context for the joins.
When the pieces do not add up to a query, :class:`~.read_state.Unclear` says which piece is missing.

A question is read in :data:`STEPS`, in that order, each step a function over one
:class:`~.read_state.ReadState`: it claims the links it understands and adds to the plan. Earlier steps
take precedence: a link the aggregates step read as the measure is not also a filter.
"""

from __future__ import annotations

from collections.abc import Callable

from services.embedded.cues import Cues
from services.embedded.index import SchemaIndex
from services.embedded.lexicon import Token
from services.embedded.linking import Linked
from services.embedded.plan import Plan
from services.embedded.read_aggregates import aggregates
from services.embedded.read_answer_columns import answer_columns
from services.embedded.read_answer_list import answer_list
from services.embedded.read_column_comparisons import column_comparisons
from services.embedded.read_compare import compare
from services.embedded.read_dates import dates
from services.embedded.read_flags import flags
from services.embedded.read_groupings import groupings
from services.embedded.read_id_refs import id_refs
from services.embedded.read_labels import labels
from services.embedded.read_metrics import metrics
from services.embedded.read_percent import percent
from services.embedded.read_ranking import ranking
from services.embedded.read_referrers import referrers
from services.embedded.read_roles import roles
from services.embedded.read_settle import settle
from services.embedded.read_state import ReadState, Unclear
from services.embedded.read_subject import subject
from services.embedded.read_tables import tables
from services.embedded.read_terms import terms
from services.embedded.read_thresholds import thresholds
from services.embedded.read_values import values

Step = Callable[[ReadState], None]
"""A reading step: reads the state and adds to it (claims links, adds to the plan, or sets ``unclear``)."""

STEPS: tuple[Step, ...] = (
    answer_list,
    aggregates,
    metrics,
    groupings,
    ranking,
    column_comparisons,
    thresholds,
    dates,
    terms,
    values,
    flags,
    id_refs,
    subject,
    compare,
    tables,
    percent,
    roles,
    labels,
    settle,
    referrers,
    answer_columns,
)


def interpret(tokens: list[Token], linked: Linked, cues: Cues, index: SchemaIndex) -> Plan | Unclear:
    """The plan a question asks for, or why it cannot be read with confidence."""
    r = ReadState.start(tokens, linked, cues, index)
    for step in STEPS:
        step(r)
        if r.unclear is not None:
            return r.unclear
    return r.plan


__all__ = ["STEPS", "Step", "Unclear", "interpret"]
