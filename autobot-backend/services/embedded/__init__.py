"""The built-in offline NL-to-SQL generator, ``embedded-v1``.

One concept per module:

* :mod:`.lexicon`   tokens, stems, general analytic vocabulary and synonyms
* :mod:`.metrics`   ``[metric: name = AGG(...) WHERE ...]`` definitions read from comments
* :mod:`.index`     the per-schema index (cached): names, comments, values, foreign keys
* :mod:`.linking`   question spans -> tables, columns, values, metrics (rapidfuzz for typos)
* :mod:`.dates`     date phrases -> half-open ranges, or windows relative to the data
* :mod:`.cues`      aggregate, grouping, ranking, threshold and comparison cue words
* :mod:`.intent`    linked question -> :class:`~.plan.Plan`
* :mod:`.joins`     shortest foreign-key paths and join trees
* :mod:`.build`, :mod:`.periods`, :mod:`.sqlparts`   plan -> sqlglot expression -> SQL
* :mod:`.refusal`   what it declines, and the reason it gives
* :mod:`.generator` :class:`EmbeddedGenerator`, the entry point
"""

from services.embedded.generator import NAME, EmbeddedGenerator
from services.embedded.refusal import Refusal

__all__ = ["NAME", "EmbeddedGenerator", "Refusal"]
