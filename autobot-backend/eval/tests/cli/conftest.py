"""Fixtures of the command-line tests: ``work``, a temporary folder the SQL run works in (``test_sql*.py``)."""

from __future__ import annotations

import pytest


@pytest.fixture
def work(tmp_path, monkeypatch):
    """Run inside tmp_path so --json/--markdown land there; baselines go to a temporary folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "baselines").mkdir()
    return tmp_path
