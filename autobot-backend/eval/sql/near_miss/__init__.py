"""The near-miss study: how many plausible mistakes the built-in corpus catches.

Every reference query of the built-in corpus gets plausible mistakes applied with sqlglot, one at
a time (:mod:`._mutate`: inclusive end and exclusive start of date ranges, BETWEEN as half-open,
inner join for left join, a WHERE condition left out, COUNT forms swapped, SUM for AVG, DISTINCT
added or removed, ASC for DESC, LIMIT off by one, money rounded to whole units, a status value
swapped, a GROUP BY expression left out). Each mutant runs on every rotation through the suite's
read-only path and is compared with the reference by the suite's own rule (:mod:`._study`); it is
killed when that comparison fails on at least one rotation. Every survivor has a reason
(:mod:`._explain`), and the figures go to the diagnosis page, ``docs/eval/diagnosis.md`` (:mod:`._report`).
Every killed mutant is also diagnosed as a wrong answer is, and how often the diagnosis names the injected
mistake's category is measured (:mod:`._agreement`)::

    python -m eval.sql.near_miss [--json OUT] [--markdown OUT] [--update-docs | --check-docs]
"""

from eval.sql.near_miss._agreement import KIND_CATEGORY, agreement, misses
from eval.sql.near_miss._explain import Classified, classify, load_explanations
from eval.sql.near_miss._mutant import Kind, Mutant
from eval.sql.near_miss._mutate import mutants
from eval.sql.near_miss._report import TARGET, Tally, agreement_block, docs_block, markdown, tally, to_json
from eval.sql.near_miss._study import Study, run_study

__all__ = [
    "KIND_CATEGORY",
    "TARGET",
    "Classified",
    "Kind",
    "Mutant",
    "Study",
    "Tally",
    "agreement",
    "agreement_block",
    "classify",
    "docs_block",
    "load_explanations",
    "markdown",
    "misses",
    "mutants",
    "run_study",
    "tally",
    "to_json",
]
