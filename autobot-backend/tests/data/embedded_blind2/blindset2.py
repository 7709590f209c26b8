"""The second blind set's files: the first set's format, over this set's four schemas.

A file is ``<schema>_<split>.yaml`` exactly as in ``tests/data/embedded_blind`` (same keys, same
:class:`Question`, same :class:`BlindSetError` messages); only the schemas differ: the two retail
fixtures plus ``airline`` and ``university``, which this set defines itself. Each question is
validated by the first set's own per-question rules, so the two sets cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.data.embedded_blind import blindset as first
from tests.data.embedded_blind.blindset import SPLITS, BlindSetError, Question

HERE = Path(__file__).resolve().parent
SCHEMAS = ("retail", "retail_24m", "airline", "university")

__all__ = ["HERE", "SCHEMAS", "SPLITS", "BlindSetError", "Question", "load_file", "load_set", "load_split"]


def _fail(path: Path, where: str, what: str) -> BlindSetError:
    return BlindSetError(f"{path.name}: {where}: {what}")


def load_file(path: Path) -> list[Question]:
    """The questions of one ``<schema>_<split>.yaml`` file of this set, validated."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise _fail(path, "YAML", f"does not parse: {exc}") from None
    if not isinstance(doc, dict) or set(doc) != {"schema", "split", "questions"}:
        raise _fail(path, "top level", "must have exactly the keys schema, split and questions")
    schema, split = doc["schema"], doc["split"]
    if schema not in SCHEMAS or split not in SPLITS:
        raise _fail(path, "top level", f"schema must be one of {SCHEMAS} and split one of {SPLITS}")
    if path.name != f"{schema}_{split}.yaml":
        raise _fail(path, "top level", f"a file for schema {schema!r}, split {split!r} must be named "
                                       f"{schema}_{split}.yaml")
    if not isinstance(doc["questions"], list) or not doc["questions"]:
        raise _fail(path, "questions", "must be a non-empty list")
    return [first._question(path, schema, split, n, raw) for n, raw in enumerate(doc["questions"], start=1)]


def load_set(directory: Path = HERE) -> list[Question]:
    """Every question of the set in ``directory``, ids checked unique across files."""
    questions: list[Question] = []
    seen: dict[str, Path] = {}
    files = sorted(Path(directory).glob("*_*.yaml"))
    if not files:
        raise BlindSetError(f"{directory}: no <schema>_<split>.yaml files found")
    for path in files:
        for q in load_file(path):
            if q.id in seen:
                raise _fail(path, q.id, f"duplicate id (also in {seen[q.id].name}); ids must be unique")
            seen[q.id] = path
            questions.append(q)
    return questions


def load_split(split: str, directory: Path = HERE) -> list[Question]:
    """The questions of one split (``tune`` or ``holdout``)."""
    if split not in SPLITS:
        raise BlindSetError(f"unknown split {split!r}; use one of {SPLITS}")
    return [q for q in load_set(directory) if q.split == split]
