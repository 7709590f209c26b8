"""The second blind set's files: the first set's format, over this set's four schemas.

A file is ``<schema>_<split>.yaml`` exactly as in ``tests/data/embedded_blind`` (same keys, same
:class:`Question`, same :class:`BlindSetError` messages); only the schemas differ: the two retail
fixtures plus ``airline`` and ``university``, which this set defines itself. Each question is
validated by the first set's own per-question rules, so the two sets cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

from tests.data.embedded_blind import blindset as first
from tests.data.embedded_blind.blindset import SPLITS, BlindSetError, Question

HERE = Path(__file__).resolve().parent
SCHEMAS = ("retail", "retail_24m", "airline", "university")

__all__ = ["HERE", "SCHEMAS", "SPLITS", "BlindSetError", "Question", "load_file", "load_set", "load_split"]


def load_file(path: Path) -> list[Question]:
    """The questions of one ``<schema>_<split>.yaml`` file of this set, validated."""
    return first.load_file(path, SCHEMAS)


def load_set(directory: Path = HERE) -> list[Question]:
    """Every question of the set in ``directory``, ids checked unique across files."""
    return first.load_set(directory, SCHEMAS)


def load_split(split: str, directory: Path = HERE) -> list[Question]:
    """The questions of one split (``tune`` or ``holdout``)."""
    if split not in SPLITS:
        raise BlindSetError(f"unknown split {split!r}; use one of {SPLITS}")
    return [q for q in load_set(directory) if q.split == split]
