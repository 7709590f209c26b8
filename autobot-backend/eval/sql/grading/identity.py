"""The run's identity: what makes two runs' numbers comparable (the cohort), and each database's
fingerprint.

The cohort fingerprint is the SHA-256 of: the corpus digest; each fixture's generator version (the
digest of its builder's code, :func:`eval.sql.fixtures.cache.code_digest`, which moving a module
leaves) and schema hash; the seed and rotations; the engine; the candidate path; the generator
version (its name, e.g. ``embedded-v5`` or ``openai-chat``); the prompt template's hash; the
temperature; the repeats. The model and the provider are shown beside it, not part of it: the
cohort says which runs are the same measurement of different systems.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from eval.sql.fixtures import cache as fixture_cache
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


def cohort(
    *,
    corpus_digest: str,
    fixtures: Mapping[str, Fixture],
    databases: Mapping[str, Sequence[dict[str, Any]]],
    seed: int | None,
    rotations: int,
    engine: str,
    candidate: str,
    generator: SQLGenerator,
    repeats: int,
) -> dict[str, Any]:
    """The cohort's keys and their fingerprint; model and provider shown apart."""
    keys = {
        "corpus": corpus_digest,
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
