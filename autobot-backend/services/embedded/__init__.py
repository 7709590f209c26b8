"""The built-in offline NL-to-SQL generator (its name: :data:`NAME`).

One concept per module, in the order a question meets them:

* :mod:`.lexicon`    tokens, stems (inflection), numbers, month names, analysts' shorthand
* :mod:`.vocabulary` general analytic vocabulary (aggregate, superlative, change and negation words), synonyms
* :mod:`.english`    ordinary English (verbs, adjectives, adverbs, number words, format words) that names no data
* :mod:`.screens`    what is declined before linking (writes, smuggled instructions, chit-chat, forecasts)
* :mod:`.refusal`    :class:`Refusal`, and the schema screen: key terms that name nothing in the schema
* :mod:`.unplaced`   a restricting word nothing in the schema places ("were *lost*"): declined by name, never dropped
* :mod:`.period_phrases`, :mod:`.dates`
                     date phrases -> half-open ranges, or windows relative to the data
* :mod:`.cues`, :mod:`.cue_amounts`
                     aggregate, grouping, grain, ranking, threshold, comparison and window cue words
  (:mod:`.cue_words` holds the word tables and phrase patterns they are read with)
* :mod:`.metrics`    ``[metric: name = AGG(...) WHERE ...]`` definitions read from column comments
* :mod:`.terms`      terms a comment defines in words ("a flight is delayed when ...")
* :mod:`.comments`, :mod:`.index`
                     the per-schema index (cached): names, comments, sampled values, foreign keys
* :mod:`.linking`    question spans -> tables, columns, values, metrics (rapidfuzz for misspellings)
* :mod:`.intent`     linked question -> :class:`~.plan.Plan` (the structured query plan), read in the steps of
  :data:`.intent.STEPS`, each a ``read_*`` module, over one :class:`~.read_state.ReadState`; the steps share
  :mod:`.read_state` (the state and its link helpers), :mod:`.measure_links`, :mod:`.durations`, :mod:`.dims`,
  :mod:`.sort_words`, :mod:`.wh_words`, :mod:`.date_columns`, :mod:`.side_by_side`, :mod:`.shown` and
  :mod:`.projection`
* :mod:`.answer_spec` the answer's columns as the question lists them ("Region and total."), applied to the plan
* :mod:`.joins`      the tables a plan reads, shortest foreign-key paths, join trees, which date dates a table's rows
* :mod:`.build`, :mod:`.conditions`, :mod:`.shapes`, :mod:`.periods`, :mod:`.sqlparts`
                     plan -> sqlglot expression -> SQL in the schema's dialect
* :mod:`.generator`  :class:`EmbeddedGenerator`, the entry point
"""

from services.embedded.generator import NAME, EmbeddedGenerator
from services.embedded.refusal import Refusal

__all__ = ["NAME", "EmbeddedGenerator", "Refusal"]
