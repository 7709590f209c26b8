"""What the built-in generator says to every question we hold: its SQL, or its refusal.

The generator is a baseline, not the product: a change to its code that is not meant to tune it
(a refactor, a lint fix, a split module) must leave every answer exactly as it was. This module
asks the generator every question of the corpus and of every blind and dev set, over the schema
context of the database the question is asked of (seed 0 of a fixture, the dev schemas on their
own seed), and writes one line per question to ``tests/data/generator_outputs.json``:
``"<set>/<id>": "sql: ..."`` or ``"refused <kind>: <reason>"``. Identical SQL gives identical rows,
so the same file before and after means the same verdict on every question under any grader.

``tests/embedded/test_generator_outputs.py`` compares a fresh collection with the file. Re-record only
when a change is meant to alter answers (never in an issue that says not to tune it)::

    python -m tests.generator_outputs --write
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import sqlalchemy as sa
import yaml

from services.embedded import EmbeddedGenerator, Refusal
from services.schema_context import SchemaContext, inspect_schema

DATA = Path(__file__).resolve().parent / "data"
SNAPSHOT = DATA / "generator_outputs.json"
CORPUS_DIR = Path(__file__).resolve().parents[1] / "eval" / "golden" / "sql"


@cache
def context(fixture: str) -> SchemaContext:
    """The schema context of rotation 0 of ``fixture`` (seed 0 after its base seed)."""
    from eval.sql.fixtures.seeded import FIXTURES as BUILTIN
    from tests.schemas import FIXTURES

    spec = {**BUILTIN, **FIXTURES}[fixture]
    engine = sa.create_engine("sqlite://")
    try:
        spec.build(engine, spec.base_seed)
        return inspect_schema(engine)
    finally:
        engine.dispose()


def questions() -> Iterator[tuple[str, str, str]]:
    """``(key, fixture, question)`` for every question held, in a stable order."""
    sets = [("corpus", sorted(CORPUS_DIR.glob("*.yaml")))]
    sets += [
        (folder, sorted((DATA / folder).glob("*.yaml")))
        for folder in ("embedded_blind", "embedded_blind2", "embedded_blind3", "embedded_dev")
    ]
    for label, paths in sets:
        for path in paths:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
            for q in doc["questions"]:
                fixture = q.get("fixture", doc["fixture"])
                yield f"{label}/{q['id']}", fixture, q["question"]
                if fixture == "dev_retail":  # the dev set's retail questions are also asked of the suite's fixture
                    yield f"{label}@retail_24m/{q['id']}", "retail_24m", q["question"]


def collect() -> dict[str, str]:
    generator = EmbeddedGenerator()
    out: dict[str, str] = {}
    for key, schema, question in questions():
        if key in out:
            raise ValueError(f"{key}: the same question id twice in one set")
        answer = generator.explain(question, context(schema))
        out[key] = f"refused {answer.kind}: {answer.reason}" if isinstance(answer, Refusal) else f"sql: {answer}"
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.generator_outputs", description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help=f"re-record {SNAPSHOT.relative_to(DATA.parent.parent)}")
    args = p.parse_args(argv)
    outputs = collect()
    if args.write:
        SNAPSHOT.write_text(json.dumps(outputs, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(outputs)} answers to {SNAPSHOT.name}")
        return 0
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    changed = sorted(k for k in outputs.keys() | recorded.keys() if outputs.get(k) != recorded.get(k))
    for key in changed:
        print(f"{key}\n  was: {recorded.get(key)}\n  now: {outputs.get(key)}")
    print(f"{len(changed)} of {len(outputs)} answers differ from {SNAPSHOT.name}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
