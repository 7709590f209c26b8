"""Tests never write the project's own records: the docs pages, the corpus, its snapshots and baselines.

A test that records a run works on a copy; this fixture fails the session when one wrote the real thing,
so a dated record can only change through its command.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parent.parent
_GUARDED = (_REPO / "docs", Path(__file__).resolve().parent / "eval" / "golden")


def _digests() -> dict[str, str]:
    return {
        str(p.relative_to(_REPO)): hashlib.sha256(p.read_bytes()).hexdigest()
        for root in _GUARDED
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="session", autouse=True)
def _project_records_untouched() -> Iterator[None]:
    before = _digests()
    yield
    after = _digests()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"a test wrote the project's own files (use a copy): {', '.join(changed)}"
