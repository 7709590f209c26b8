"""Six-word phrases of questions, and the built-in generator's code to look for them in.

Shared by the leak scans (``tests/embedded/test_heldout.py`` for the corpus, ``tests.question_sets``
for the blind and dev sets). Six words, because shorter runs are ordinary analytic English that any
two authors share ("average number of orders per" is a phrase, not a leak).
"""

from __future__ import annotations

import re
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[1]
GENERATOR_FILES = sorted(
    p for p in (BACKEND / "services" / "embedded").rglob("*") if p.is_file() and "__pycache__" not in p.parts
)
PHRASE_WORDS = 6


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def shingles(text: str, n: int = PHRASE_WORDS) -> set[str]:
    w = words(text)
    return {" ".join(w[i : i + n]) for i in range(len(w) - n + 1)}


def generator_text() -> str:
    """Every file of the generator, as one text."""
    return "\n".join(p.read_text(encoding="utf-8") for p in GENERATOR_FILES)
