"""The gate CI enforces, run inside ``make test`` through the same code path as the CLI.

The reference candidate must grade 100% (the oracle agrees with itself end to end), and the
built-in embedded generator must hold its committed baseline: pass-rate floor, refusal recall,
over-refusals, corpus size, no missing question, composition. Relaxing any of these needs a
visible change to a committed baseline file.
"""

import json

import pytest

from eval.run import main
from eval.sql.corpus.composition import corpus_composition
from eval.sql.corpus.questions import load_corpus
from eval.sql.gate.baseline import BASELINE_DIR, load_baseline


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    return tmp_path


def test_reference_candidate_grades_every_answerable_question_as_pass(here):
    assert main(["--suite", "sql", "--candidate", "reference", "--json", "ref.json"]) == 0
    summary = json.loads((here / "ref.json").read_text())["summary"]
    assert summary["pass"] == summary["answerable"] > 0
    assert summary["pass_rate"] == 1.0 and summary["unmeasured"] == 0


def test_embedded_candidate_holds_its_committed_baseline(here, capsys):
    code = main(["--suite", "sql", "--candidate", "embedded", "--fail-on-regression", "--json", "emb.json"])
    gate = json.loads((here / "emb.json").read_text())["gate"]
    assert code == 0, capsys.readouterr().err
    assert gate["status"] == "passed"
    assert {c["name"] for c in gate["checks"]} >= {
        "pass_rate_floor",
        "corpus_size",
        "missing_questions",
        "composition",
        "refusal_recall",
        "over_refusals",
    }


def test_committed_embedded_baseline_covers_the_whole_current_corpus():
    from services.embedded import EmbeddedGenerator

    baseline = load_baseline("embedded", EmbeddedGenerator.model, BASELINE_DIR)
    assert baseline is not None, "record it with: python -m eval.run --suite sql --record-baseline"
    corpus = load_corpus()
    assert set(baseline.questions) == {q.id for q in corpus.questions}
    assert baseline.composition == corpus_composition(corpus)
    assert baseline.corpus.digest == corpus.digest
