"""The generator's question sets as their briefs asked for them: sizes, refusals and controls in every
file, no near-duplicates within a set or with an earlier set, blind set 3 all holdout.

Each set loads as a corpus of the suite (the suite's own loader and its checks); a later set's
overlap with an earlier one names only the later set's ids, so its writer never reads the others.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from eval.sql.corpus.composition import NEAR_DUPLICATE_THRESHOLD, near_duplicates
from eval.sql.corpus.questions import Corpus, Question, load_corpus
from eval.sql.fixtures.seeded import FIXTURES
from tests.question_sets import SETS
from tests.schemas import FIXTURES as SCHEMAS

# (set, fixtures, split) -> minimum answerable questions, as each set's brief asked
MINIMUMS = {
    ("blind1", ("retail", "retail_24m"), "tune"): 80,
    ("blind1", ("retail", "retail_24m"), "holdout"): 40,
    **{("blind1", (s,), "tune"): 20 for s in ("library", "clinic", "saas")},
    **{("blind1", (s,), "holdout"): 12 for s in ("library", "clinic", "saas")},
    ("blind2", ("retail", "retail_24m"), "tune"): 60,
    ("blind2", ("retail", "retail_24m"), "holdout"): 40,
    **{("blind2", (s,), "tune"): 25 for s in ("airline", "university")},
    **{("blind2", (s,), "holdout"): 15 for s in ("airline", "university")},
    ("blind3", ("retail", "retail_24m"), "holdout"): 45,
    ("blind3", ("hotel",), "holdout"): 18,
    ("blind3", ("logistics",), "holdout"): 18,
}
# set -> (must-refuse cases, controls) every file needs at least
PER_FILE = {"blind1": (3, 0), "blind2": (3, 1), "blind3": (5, 2)}


def load(name: str) -> Corpus:
    return load_corpus(SETS[name].files(), fixtures=(*FIXTURES, *SCHEMAS))


def split(q: Question) -> str:
    return Path(q.source).stem.rsplit("_", 1)[1]


@pytest.mark.parametrize("name", ["blind1", "blind2", "blind3", "dev"])
def test_set_loads_as_a_corpus_of_the_suite(name):
    corpus = load(name)
    assert corpus.size > 100 and {q.expect for q in corpus.questions} == {"answer", "refuse"}


@pytest.mark.parametrize("key", sorted(MINIMUMS), ids=lambda k: f"{k[0]}-{'+'.join(k[1])}-{k[2]}")
def test_each_set_has_the_questions_its_brief_asked_for(key):
    name, fixtures, which = key
    have = sum(q.expect == "answer" and q.fixture in fixtures and split(q) == which for q in load(name).questions)
    assert have >= MINIMUMS[key]


@pytest.mark.parametrize("name", sorted(PER_FILE))
def test_every_file_has_its_refusals_and_controls(name):
    refusals, controls = PER_FILE[name]
    questions = load(name).questions
    per_file = Counter(q.source for q in questions if q.expect == "refuse")
    per_file_controls = Counter(q.source for q in questions if q.stratum.startswith("control_"))
    for source in {q.source for q in questions}:
        assert per_file[source] >= refusals, source
        assert per_file_controls[source] >= controls, source


def test_blind_set_3_is_all_holdout():
    assert {split(q) for q in load("blind3").questions} == {"holdout"}


@pytest.mark.parametrize("name", ["blind1", "blind2", "blind3"])
def test_no_two_questions_of_a_set_are_near_duplicates(name):
    assert near_duplicates(load(name).questions) == []


@pytest.mark.parametrize("name, earlier", [("blind2", ("blind1",)), ("blind3", ("blind1", "blind2"))])
def test_no_question_repeats_an_earlier_set(name, earlier):
    """Named by this set's ids only, so the earlier sets' questions stay unread."""
    mine = load(name).questions
    theirs = [q for e in earlier for q in load(e).questions]
    mine_ids = {q.id for q in mine}
    pairs = near_duplicates([*mine, *theirs], NEAR_DUPLICATE_THRESHOLD)
    crossing = sorted({a if a in mine_ids else b for a, b, _ in pairs if (a in mine_ids) != (b in mine_ids)})
    assert crossing == []
