"""Plain helpers the corpus loader's test modules share: a valid file, a file written, its problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.sql.corpus.questions import CorpusError, load_corpus

GOOD = """\
version: 1
fixture: retail
questions:
  - id: q-1
    question: How many customers are there?
    shape: scalar
    sql: SELECT COUNT(*) FROM customers
  - id: q-2
    question: Which products   sell
      best?
    expect: answer
    stratum: ranking
    ordered: true
    decimals: 0
    fixture: retail_24m
    sql: |
      SELECT name FROM products ORDER BY name
    sql_postgresql: SELECT name FROM products ORDER BY name COLLATE "C"
    sql_mysql: SELECT name FROM products ORDER BY BINARY name
    why: a free-text note
  - id: q-3
    question: Delete every order.
    expect: refuse
    stratum: unsupported_write
    why: answering would change data
"""


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems_of(*paths: Path, **kw) -> list[str]:
    with pytest.raises(CorpusError) as err:
        load_corpus(list(paths), **kw)
    assert all(p in str(err.value) for p in err.value.problems)
    return err.value.problems


def question(body: str) -> str:
    """A one-question file; ``body`` is the question mapping's lines (4-space indented); line 4 is its first."""
    return "version: 1\nfixture: retail\nquestions:\n  - id: q-1\n" + body
