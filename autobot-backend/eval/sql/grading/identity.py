"""The run's identity: what makes two runs' numbers comparable (the cohort), each database's
fingerprint, and the one comparison of two runs' set-ups.

The cohort is every setting of a run that can change a verdict, derived from the run's set-up in
one place (:func:`cohort`): the corpus digest (which also covers every question's own ``decimals``,
``ordered``, ``shape`` and ``column_order``: they are bytes of the corpus files); each fixture's
generator version (the digest of its builder's code, :func:`eval.sql.fixtures.cache.code_digest`,
which moving a module leaves) and schema hash; the seed and rotations; the
engine; the effective column-order policy (``--column-order``, else the corpus's own); the version
of the comparison policy (:data:`eval.sql.rows.POLICY_VERSION`; there is no run-level decimals or
tolerance setting); the candidate path; the generator version (its name, e.g. ``embedded-v5`` or
``openai-chat``); the prompt template's hash; the temperature; the repeats; the row cap of a model's
answer (``--row-cap``, ``NL_SQL_ROW_CAP``) when it is not the default 10,000 (a question's own
``row_cap`` is corpus bytes); ``sample_values: false`` when a model was sent no value sampled from the
database (``--no-sample-values``, the corpus key, ``NL_SQL_LLM_SAMPLE_VALUES=0``); the counterexample search's budget
per pass (``--counterexamples``), when it searches. Its fingerprint is the
SHA-256 of those keys. The model and the provider are shown beside it, not part of it: the cohort
says which runs are the same measurement of different systems.

:func:`eval.sql.model.cohort.cohort_differences` is the only place two set-ups are compared:
``eval.tools.compare_runs``, the gate and the accuracy record all ask it. A key a cohort lacks (a
report or baseline written before the key existed) is ``unknown``, never assumed equal to anything: it
is named like any difference.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from eval.sql.fixtures import cache as fixture_cache
from eval.sql.model.setup import Cohort, DatabaseStamp
from eval.sql.rows import POLICY_VERSION
from services.readonly.limits import ROW_CAP

if TYPE_CHECKING:
    from eval.sql.corpus.questions import Corpus, Question
    from eval.sql.fixtures.seeded import Fixture
    from services.generation.protocol import SQLGenerator
    from services.nl_database_service import NLDatabaseService


def fingerprint(service: NLDatabaseService, url: str) -> DatabaseStamp:
    """What a baseline keeps of a database to tell later whether it changed: the SHA-256 of its schema
    (tables, columns, types, keys, comments; no data), and for a SQLite file, of the file."""
    schema = json.dumps(service.structure(url), sort_keys=True, default=str)
    digest = hashlib.sha256(schema.encode()).hexdigest()
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        return DatabaseStamp(digest)
    if parsed.get_backend_name() == "sqlite" and parsed.database and Path(parsed.database).is_file():
        return DatabaseStamp(digest, fixture_cache.file_sha256(Path(parsed.database)))  # read once a run
    return DatabaseStamp(digest)


def column_order_of(questions: Iterable[Question]) -> str:
    """The column-order policy the questions are graded under: ``positional``, ``any``, or, when a corpus
    mixes them, ``mixed (N any, M positional)``."""
    orders = Counter(q.column_order for q in questions)
    if len(orders) <= 1:
        return next(iter(orders), "positional")
    return "mixed (" + ", ".join(f"{n} {order}" for order, n in sorted(orders.items())) + ")"


def cohort(
    *,
    corpus: Corpus,
    fixtures: Mapping[str, Fixture],
    databases: Mapping[str, list[DatabaseStamp]],
    seed: int | None,
    rotations: int,
    engine: str,
    candidate: str,
    generator: SQLGenerator,
    repeats: int,
    row_cap: int = ROW_CAP,
    counterexamples: str | None = None,
) -> Cohort:
    """The cohort's keys and their fingerprint; model and provider shown apart. ``corpus`` is the corpus
    as graded (``--column-order`` already applied), ``databases`` the fingerprints of what was built."""
    keys = {
        "corpus": corpus.digest,
        "fixtures": {
            name: {
                "generator": fixture_cache.code_digest(f.sources)[:16] if f.sources else None,
                "schema": databases[name][0].schema[:16] if databases[name] else "",
            }
            for name, f in sorted(fixtures.items())
            if name in databases
        },
        "seed": seed,
        "rotations": rotations,
        "engine": engine,
        "column_order": column_order_of(corpus.questions),
        "comparison_policy": POLICY_VERSION,
        "candidate": candidate,
        "generator": getattr(generator, "name", type(generator).__name__),
        "prompt": getattr(generator, "prompt_hash", None),
        "temperature": getattr(generator, "temperature", None),
        "repeats": repeats,
    }
    if row_cap != ROW_CAP:  # only then: a run at the default keeps the cohort its baselines were recorded in
        keys["row_cap"] = row_cap
    if getattr(generator, "sample_values", True) is False:  # likewise: sent no stored value (issue 37 point 4)
        keys["sample_values"] = False
    if counterexamples is not None:  # only with --counterexamples: a run without keeps its cohort
        keys["counterexamples"] = counterexamples
    digest = hashlib.sha256(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:16]
    return Cohort(digest, keys, generator.model, getattr(generator, "endpoint", None))
