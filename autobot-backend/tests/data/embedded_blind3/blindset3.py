"""The third blind set's files: the first set's format, over this set's four schemas.

A file is ``<schema>_<split>.yaml`` exactly as in ``tests/data/embedded_blind`` (same keys, same
:class:`Question`, same :class:`BlindSetError` messages); only the schemas differ: the two retail
fixtures plus ``hotel`` and ``logistics``, which this set defines itself. This set is a pure
holdout, so every file is a ``holdout`` file; the loader still accepts the first set's splits,
and ``check.py`` reports any file that is not a holdout.
"""

from __future__ import annotations

from pathlib import Path

from tests.data.embedded_blind import blindset as first
from tests.data.embedded_blind.blindset import SPLITS, BlindSetError, Question

HERE = Path(__file__).resolve().parent
SCHEMAS = ("retail", "retail_24m", "hotel", "logistics")
SPLIT = "holdout"

__all__ = ["HERE", "SCHEMAS", "SPLIT", "SPLITS", "BlindSetError", "Question", "load_file", "load_set"]


def load_file(path: Path) -> list[Question]:
    """The questions of one ``<schema>_holdout.yaml`` file of this set, validated."""
    return first.load_file(path, SCHEMAS)


def load_set(directory: Path = HERE) -> list[Question]:
    """Every question of the set in ``directory``, ids checked unique across files."""
    return first.load_set(directory, SCHEMAS)
