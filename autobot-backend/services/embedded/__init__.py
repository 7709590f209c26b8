"""The built-in offline NL-to-SQL generator, ``embedded-v5``.

One concept per module, in the order a question meets them:

* :mod:`.lexicon`    tokens, stems (inflection), general analytic vocabulary, synonyms, shorthand
* :mod:`.english`    ordinary English (verbs, adjectives, adverbs, number words, format words) that names no data
* :mod:`.refusal`    what is declined before and after linking, and the reason given
* :mod:`.unplaced`   a restricting word nothing in the schema places ("were *lost*"): declined by name, never dropped
* :mod:`.dates`      date phrases -> half-open ranges, or windows relative to the data
* :mod:`.cues`       aggregate, grouping, grain, ranking, threshold, comparison and window cue words
  (:mod:`.cue_words` holds the word tables and phrase patterns they are read with)
* :mod:`.metrics`    ``[metric: name = AGG(...) WHERE ...]`` definitions read from column comments
* :mod:`.terms`      terms a comment defines in words ("a flight is delayed when ...")
* :mod:`.index`      the per-schema index (cached): names, comments, sampled values, foreign keys
* :mod:`.linking`    question spans -> tables, columns, values, metrics (rapidfuzz for misspellings)
* :mod:`.read_state`, :mod:`.read_measures`, :mod:`.read_groups`, :mod:`.read_ranking`, :mod:`.read_filters`,
  :mod:`.read_dates`, :mod:`.read_periods`,
  :mod:`.read_compare`, :mod:`.read_roles` (which of two keys to one table),
  :mod:`.read_labels` (groups the question labels itself), :mod:`.read_terms` (defined terms said),
  :mod:`.intent`
                     linked question -> :class:`~.plan.Plan` (the structured query plan)
* :mod:`.answer_spec` the answer's columns as the question lists them ("Region and total."), applied to the plan
* :mod:`.joins`      shortest foreign-key paths, join trees, which date dates a table's rows
* :mod:`.build`, :mod:`.shapes`, :mod:`.periods`, :mod:`.sqlparts`
                     plan -> sqlglot expression -> SQL in the schema's dialect
* :mod:`.generator`  :class:`EmbeddedGenerator`, the entry point
"""

from services.embedded.generator import NAME, EmbeddedGenerator
from services.embedded.refusal import Refusal

__all__ = ["NAME", "EmbeddedGenerator", "Refusal"]
