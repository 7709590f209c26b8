"""The built-in generator is general: nothing of the corpus is in its code or data.

It is measured on the corpus as on questions it has never seen, so the corpus must not leak into
it. Scanned: every file of the generator (``services/embedded/`` and its entry module), for
corpus question ids, whole questions, phrases of six words or more taken from any question, and
distinctive answers (numbers with cents or of five or more digits from the committed reference
snapshots), phrases as :mod:`tests.phrases` cuts them.
"""

from __future__ import annotations

import json
import re

import pytest

from eval.sql.corpus.questions import load_corpus
from eval.sql.corpus.snapshot import SNAPSHOT_DIR
from tests.phrases import GENERATOR_FILES, PHRASE_WORDS, shingles, words
from tests.phrases import generator_text as read_generator

CORPUS = load_corpus()


@pytest.fixture(scope="module")
def generator_text() -> str:
    assert len(GENERATOR_FILES) > 5
    return read_generator()


def distinctive_answers() -> set[str]:
    found: set[str] = set()
    for path in SNAPSHOT_DIR.glob("*.json"):
        for answer in json.loads(path.read_text())["answers"].values():
            for row in answer["rows"]:
                for value in row:
                    text = str(value[1] if isinstance(value, list) else value)
                    if re.fullmatch(r"-?\d+\.\d{2,}", text) or re.fullmatch(r"-?\d{5,}", text):
                        found.add(text)
    return found


# Failures report counts only: the corpus is held out from whoever develops the generator, and a
# failure message that quoted the leaked phrase would show it to them.

# The counts are computed before the assertion, so pytest's assertion rewriting has nothing to show
# but two integers.


def _count(found) -> int:
    return sum(1 for _ in found)


def test_no_corpus_id_appears(generator_text):
    ids = _count(q for q in CORPUS.questions if q.id in generator_text)
    styled = _count(re.finditer(r"\b(rtl|r24|ref)-[a-z_]+-\d+", generator_text))
    assert ids == 0, f"{ids} corpus question id(s) appear in the generator"
    assert styled == 0, f"{styled} corpus-style id(s) appear in the generator"


def test_no_corpus_question_or_phrase_appears(generator_text):
    normalised = " ".join(words(generator_text))
    phrases = _count(s for q in CORPUS.questions for s in shingles(q.question) if s in normalised)
    whole = _count(q for q in CORPUS.questions if " ".join(words(q.question)) in normalised)
    assert phrases == 0, f"{phrases} six-word phrase(s) of corpus questions appear in the generator"
    assert whole == 0, f"{whole} whole corpus question(s) appear in the generator"


def test_no_distinctive_answer_appears(generator_text):
    answers = distinctive_answers()
    assert len(answers) > 50  # the scan has something to look for
    leaked = _count(a for a in answers if re.search(rf"(?<![\d.]){re.escape(a)}(?![\d])", generator_text))
    assert leaked == 0, f"{leaked} distinctive corpus answer(s) appear in the generator"


def test_the_scan_catches_a_planted_leak():
    q = CORPUS.questions[0]
    planted = f"# a helpful note: {q.question}\n"
    assert shingles(q.question) & shingles(planted) or len(words(q.question)) < PHRASE_WORDS
    assert " ".join(words(q.question)) in " ".join(words(planted))
