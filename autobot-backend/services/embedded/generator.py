"""``EmbeddedGenerator``: the built-in offline NL-to-SQL generator (its name and model: :data:`NAME`).

Question -> screens (write, injection, chit-chat) -> cue words -> schema linking -> unlinked-term
and unplaced-condition screens -> plan -> SQL rendered by sqlglot for the schema's dialect. Deterministic, offline, no
model: the same question over the same schema gives the same SQL, or the same refusal.

A refusal is the generator's own verdict: a screen's, the reader's :class:`~.read_state.Unclear`, or a plan the
builder cannot build (:class:`~.sqlparts.BuildError`, or a construct the dialect cannot express). Any other
exception is a bug and propagates, for the service to report as an internal error.
"""

from __future__ import annotations

from sqlglot.errors import SqlglotError

from services.embedded.build import Builder
from services.embedded.cues import release_names, scan
from services.embedded.index import index_for
from services.embedded.intent import Unclear, interpret
from services.embedded.lexicon import expand, tokenize
from services.embedded.linking import link, literal_names
from services.embedded.refusal import Refusal, unlinked_terms
from services.embedded.screens import screen, time_of_day
from services.embedded.sqlparts import BuildError
from services.embedded.unplaced import unplaced_condition
from services.generation.protocol import Generation
from services.generation.transpile import render_as_sqlite_means
from services.schema_context import SchemaContext

NAME = "embedded-v5"
MAX_QUESTION_CHARS = 1000


class EmbeddedGenerator:
    """Schema-linking NL-to-SQL baseline; implements :class:`services.generation.protocol.SQLGenerator`."""

    name = NAME
    model = NAME

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        outcome = self.explain(question, schema)
        if isinstance(outcome, Refusal):
            return Generation.refuse(f"{_LABELS[outcome.kind]}: {outcome.reason}")
        return Generation(sql=outcome)

    def explain(self, question: str, schema: SchemaContext) -> str | Refusal:
        """The SQL for ``question``, or the :class:`Refusal` with its kind (for tests and reports)."""
        if not isinstance(question, str) or len(question) > MAX_QUESTION_CHARS:
            return Refusal("unclear", "the question is missing or too long")
        early = screen(question)
        if early is not None:
            return early
        if not schema.tables:
            return Refusal("out_of_schema", "the database has no tables")
        index = index_for(schema)
        untimed = time_of_day(question, index)
        if untimed is not None:
            return untimed
        text = expand(question)
        tokens = tokenize(text)
        cues = release_names(scan(tokens, text), tokens, index)
        linked = literal_names(link(tokens, index, cues.skip), index)
        if not linked.links:
            if any(t.kind == "word" for t in tokens):
                missing = unlinked_terms(tokens, linked, index)
                if missing is not None:
                    return missing
            return Refusal(
                "unclear",
                "it does not name anything this database holds (no table, column, "
                "value or metric); say what to count, add up or list",
            )
        missing = unlinked_terms(tokens, linked, index)
        if missing is not None:
            return missing
        unplaced = unplaced_condition(tokens, linked, cues.skip, frozenset(index.terms), index.vocabulary)
        if unplaced is not None:
            return unplaced
        plan = interpret(tokens, linked, cues, index)
        if isinstance(plan, Unclear):
            return Refusal("unclear", plan.reason)
        try:
            tree = Builder(plan, index).build()
        except BuildError as e:  # the plan's tables are not connected, no date places its rows in periods, ...
            return _not_built(e)
        try:
            # Built with SQLite's meaning (where it is tuned), rendered natively for the schema's dialect.
            return render_as_sqlite_means(tree, index.dialect)
        except SqlglotError as e:  # a construct the schema's dialect cannot express
            return _not_built(e)


def _not_built(error: Exception) -> Refusal:
    return Refusal("unclear", f"no query could be built with confidence ({type(error).__name__}: {error})")


_LABELS = {
    "write": "declined (write request)",
    "injection": "declined (instruction in the question)",
    "non_analytical": "declined (not a question about the data)",
    "out_of_schema": "declined (not in this database)",
    "unclear": "declined (cannot read the question with confidence)",
}
