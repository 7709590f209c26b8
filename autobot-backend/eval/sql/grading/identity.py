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
``openai-chat``); the prompt template's hash; the temperature; the repeats. Its fingerprint is the
SHA-256 of those keys. The model and the provider are shown beside it, not part of it: the cohort
says which runs are the same measurement of different systems.

:func:`cohort_differences` is the only place two set-ups are compared: ``eval.tools.compare_runs``, the gate
and the accuracy record all ask it. A key a cohort lacks (a report or baseline written before the
key existed) is ``unknown``, never assumed equal to anything: it is named like any difference.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import sqlalchemy as sa

from eval.sql.fixtures import cache as fixture_cache
from eval.sql.rows import POLICY_VERSION

if TYPE_CHECKING:
    from eval.sql.corpus.questions import Corpus, Question
    from eval.sql.fixtures.seeded import Fixture
    from services.generation.protocol import SQLGenerator
    from services.nl_database_service import NLDatabaseService


def fingerprint(service: NLDatabaseService, url: str) -> dict[str, str | None]:
    """What a baseline keeps of a database to tell later whether it changed: the SHA-256 of its schema
    (tables, columns, types, keys, comments; no data), and for a SQLite file, of the file."""
    schema = json.dumps(service.structure(url), sort_keys=True, default=str)
    out: dict[str, str | None] = {"schema": hashlib.sha256(schema.encode()).hexdigest(), "sha256": None}
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        return out
    if parsed.get_backend_name() == "sqlite" and parsed.database and Path(parsed.database).is_file():
        h = hashlib.sha256()
        with Path(parsed.database).open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        out["sha256"] = h.hexdigest()
    return out


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
    databases: Mapping[str, list[dict[str, Any]]],
    seed: int | None,
    rotations: int,
    engine: str,
    candidate: str,
    generator: SQLGenerator,
    repeats: int,
) -> dict[str, Any]:
    """The cohort's keys and their fingerprint; model and provider shown apart. ``corpus`` is the corpus
    as graded (``--column-order`` already applied), ``databases`` the fingerprints of what was built."""
    keys = {
        "corpus": corpus.digest,
        "fixtures": {
            name: {
                "generator": fixture_cache.code_digest(f.sources)[:16] if f.sources else None,
                "schema": (databases.get(name) or [{}])[0].get("schema", "")[:16],
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
    digest = hashlib.sha256(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "fingerprint": digest,
        "keys": keys,
        "model": generator.model,
        "provider": getattr(generator, "endpoint", None),
    }


_FROM_RUN = ("engine", "rotations", "seed", "repeats", "column_order")
"""Cohort keys an older report or baseline kept in its ``run`` (``column_order`` only when overridden)."""


def cohort_keys(record: Mapping[str, Any]) -> dict[str, Any]:
    """The cohort keys of a JSON report or a baseline file. A key its cohort lacks (written before the key
    existed) is taken from where the record itself kept it (its run set-up, corpus digest, candidate path),
    else left out: unknown."""
    found = record.get("cohort")
    keys = dict(found.get("keys") or {}) if isinstance(found, Mapping) else {}
    run = record.get("run")
    if isinstance(run, Mapping):
        keys.update({k: run[k] for k in _FROM_RUN if k not in keys and k in run})
    for key, section, field in (("corpus", "corpus", "digest"), ("candidate", "candidate", "path")):
        kept = record.get(section)
        if key not in keys and isinstance(kept, Mapping) and field in kept:
            keys[key] = kept[field]
    return keys


class _Missing:
    """A key one side does not have: ``unknown`` (its cohort predates the key) or ``absent`` (e.g. a
    fixture the other run did not use)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNKNOWN, ABSENT = _Missing("unknown"), _Missing("absent")


def _show(value: Any) -> str:
    if isinstance(value, _Missing):
        return value.name
    if value is None:
        return "none"
    if isinstance(value, str):
        return value if len(value) <= 24 else value[:16] + "..."
    return json.dumps(value, sort_keys=True, default=str)


class Difference(NamedTuple):
    """One key on which two cohorts differ; ``str()`` reads ``key: A's value vs B's value``."""

    key: str
    """Nested keys flattened: ``fixtures.retail.generator``."""
    a: Any
    b: Any

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.a)} vs {_show(self.b)}"

    @property
    def top(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def unknown(self) -> bool:
        """One side's cohort predates the key: a difference, because sameness cannot be shown."""
        return self.a is UNKNOWN or self.b is UNKNOWN


def _flat(keys: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in keys.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def cohort_differences(
    a: Mapping[str, Any], b: Mapping[str, Any], *, only: Collection[str] | None = None, skip: Collection[str] = ()
) -> list[Difference]:
    """The keys on which cohort keys ``a`` and ``b`` differ, nested keys flattened (``only``/``skip``: top-level
    keys to keep or leave out); an empty list is the same cohort. A key missing on one side is ``unknown``
    when that side lacks the top-level key (its cohort predates it), else ``absent``."""
    flat_a, flat_b = _flat(a), _flat(b)
    tops = [t for t in (dict.fromkeys([*a, *b]) if only is None else only) if t not in skip]
    differences = []
    for top in tops:
        for path in sorted(p for p in {*flat_a, *flat_b} if p.split(".", 1)[0] == top):
            va = flat_a.get(path, ABSENT if top in a else UNKNOWN)
            vb = flat_b.get(path, ABSENT if top in b else UNKNOWN)
            if isinstance(va, _Missing) or isinstance(vb, _Missing) or va != vb:
                differences.append(Difference(path, va, vb))
    return differences
