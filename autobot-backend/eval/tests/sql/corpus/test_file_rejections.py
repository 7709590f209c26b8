"""The corpus loader's rejections: each names file, line and question id, every problem is reported and nothing
is returned; hostile YAML (an alias bomb, deep nesting, absurd decimals) is refused at once with its line, under
both YAML parsers. What a valid file loads as is ``test_file_loader.py``."""

from __future__ import annotations

import re

import pytest
import yaml

from eval.sql.corpus import safe_yaml
from eval.tests.sql.corpus._helpers import GOOD, problems_of, question, write

# -- rejected: each names file, line and id -----------------------------------------------------

REJECTIONS = [
    (
        "unknown-key",
        question("    question: x?\n    sql: SELECT 1\n    ordred: true\n"),
        7,
        "unknown key 'ordred' (did you mean 'ordered'?)",
    ),
    (
        "unknown-dialect",
        question("    question: x?\n    sql: SELECT 1\n    sql_postgres: SELECT 1\n"),
        7,
        "unknown key 'sql_postgres' (did you mean 'sql_postgresql'?)",
    ),
    (
        "duplicate-yaml-key",
        question("    question: x?\n    sql: SELECT 1\n    sql: SELECT 2\n"),
        7,
        "duplicate key 'sql' in one mapping",
    ),
    (
        "answer-without-sql",
        question("    question: x?\n    expect: answer\n"),
        4,
        "expect: answer needs a reference query in 'sql'",
    ),
    (
        "refuse-with-shape",
        question("    question: x?\n    expect: refuse\n    shape: scalar\n"),
        7,
        "expect: refuse takes no 'shape'",
    ),
    (
        "refuse-with-ordered",
        question("    question: x?\n    expect: refuse\n    ordered: false\n"),
        7,
        "expect: refuse takes no 'ordered'",
    ),
    (
        "refuse-with-sql",
        question("    question: x?\n    expect: refuse\n    sql: SELECT 1\n"),
        7,
        "expect: refuse takes no 'sql'",
    ),
    (
        "refuse-with-dialect-sql",
        question("    question: x?\n    expect: refuse\n    sql_sqlite: SELECT 1\n"),
        7,
        "expect: refuse takes no 'sql_sqlite'",
    ),
    (
        "unknown-fixture",
        question("    question: x?\n    sql: SELECT 1\n    fixture: retail_12m\n"),
        7,
        "fixture 'retail_12m' does not exist (did you mean 'retail_24m'?)",
    ),
    (
        "ordered-not-bool",
        question("    question: x?\n    sql: SELECT 1\n    ordered: 'yes'\n"),
        7,
        "'ordered' must be true or false, found a string 'yes'",
    ),
    (
        "static-not-bool",
        question("    question: x?\n    sql: SELECT 1\n    static: 1\n"),
        7,
        "'static' must be true or false, found a number 1",
    ),
    (
        "negative-decimals",
        question("    question: x?\n    sql: SELECT 1\n    decimals: -1\n"),
        7,
        "'decimals' must be a whole number from 0 to 15",
    ),
    (
        "fractional-decimals",
        question("    question: x?\n    sql: SELECT 1\n    decimals: 1.5\n"),
        7,
        "'decimals' must be a whole number from 0 to 15",
    ),
    (
        "bad-shape",
        question("    question: x?\n    sql: SELECT 1\n    shape: table\n"),
        7,
        "'shape' must be one of scalar, rows",
    ),
    (
        "bad-expect",
        question("    question: x?\n    sql: SELECT 1\n    expect: maybe\n"),
        7,
        "'expect' must be one of answer, refuse",
    ),
    (
        "question-not-text",
        question("    question: 2024-01-01\n    sql: SELECT 1\n"),
        5,
        "'question' must be a non-empty string",
    ),
    ("missing-question", question("    sql: SELECT 1\n"), 4, "missing 'question'"),
    ("sql-not-text", question("    question: x?\n    sql: 42\n"), 6, "'sql' must be a non-empty string"),
    (
        "fixture-and-database",
        question("    question: x?\n    fixture: retail\n    database: hr\n    sql: SELECT 1\n"),
        7,
        "a question runs on either a fixture or a database, not both",
    ),
    (
        "database-with-a-slash",
        question("    question: x?\n    database: ../hr\n    sql: SELECT 1\n"),
        6,
        "'database' must be a database name (a folder name, no slashes)",
    ),
    (
        "unknown-column-order",
        question("    question: x?\n    column_order: sorted\n    sql: SELECT 1\n"),
        6,
        "'column_order' must be one of positional, any",
    ),
    (
        "empty-difficulty",
        question("    question: x?\n    difficulty: ''\n    sql: SELECT 1\n"),
        6,
        "'difficulty' must be",
    ),
    (
        "why-not-one-line",
        question("    question: x?\n    sql: SELECT 1\n    why: |\n      one\n      two\n"),
        7,
        "'why' must be one line of text",
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS])
def test_rejection_names_file_line_and_id(tmp_path, text, line, message):
    path = write(tmp_path, text)
    problems = problems_of(path)
    assert any(p.startswith(f"{path}:{line}: question 'q-1': ") and message in p for p in problems), problems


FILE_REJECTIONS = [
    ("missing-id", "version: 1\nfixture: retail\nquestions:\n  - question: x?\n    sql: SELECT 1\n", 4, "missing id"),
    (
        "id-not-text",
        "version: 1\nfixture: retail\nquestions:\n  - id: 123\n    question: x?\n    sql: SELECT 1\n",
        4,
        "'id' must be a non-empty string without spaces, found 123",
    ),
    (
        "unsupported-version",
        "version: 2\nfixture: retail\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n",
        1,
        "unsupported version 2 (supported: 1)",
    ),
    (
        "float-version",
        "version: 1.0\nfixture: retail\nquestions:\n  - id: a\n    question: x?\n    sql: S\n",
        1,
        "unsupported version 1.0",
    ),
    (
        "missing-version",
        "fixture: retail\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n",
        1,
        "missing 'version'",
    ),
    (
        "unknown-file-key",
        "version: 1\nfixtures: retail\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n",
        2,
        "unknown file key 'fixtures' (did you mean 'fixture'?)",
    ),
    ("no-questions", "version: 1\nfixture: retail\nquestions: []\n", 3, "'questions' must be a non-empty list"),
    ("not-a-mapping", "- just\n- a list\n", 1, "the file must be a mapping"),
    (
        "yaml-syntax",
        "version: 1\nquestions:\n  - id: a\n    question: [unclosed\n    sql: SELECT 1\n",
        5,
        "YAML does not parse",
    ),
    (
        "no-fixture-anywhere",
        "version: 1\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n",
        3,
        "question 'a': no fixture",
    ),
    (
        "file-fixture-and-database",
        "version: 1\nfixture: retail\ndatabase: hr\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n",
        3,
        "a file names either a fixture or a database for its questions, not both",
    ),
    (
        "file-column-order",
        "version: 1\nfixture: retail\ncolumn_order: 1\nquestions:\n  - id: a\n    question: x?\n    sql: S\n",
        3,
        "'column_order' must be one of positional, any",
    ),
    (
        "question-not-mapping",
        "version: 1\nfixture: retail\nquestions:\n  - just text\n",
        4,
        "a question must be a mapping",
    ),
    (
        "duplicate-id",
        "version: 1\nfixture: retail\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n"
        "  - id: a\n    question: y?\n    sql: SELECT 2\n",
        7,
        "question 'a': duplicate id (first used at ",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "message"), [r[1:] for r in FILE_REJECTIONS], ids=[r[0] for r in FILE_REJECTIONS]
)
def test_file_level_rejection_names_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path, text)
    problems = problems_of(path)
    assert any(p.startswith(f"{path}:{line}: ") and message in p for p in problems), problems


def test_duplicate_id_across_files_names_both(tmp_path):
    a = write(tmp_path, question("    question: x?\n    sql: SELECT 1\n"), "a.yaml")
    b = write(tmp_path, question("    question: y?\n    sql: SELECT 2\n"), "b.yaml")
    (problem,) = problems_of(a, b)
    assert problem == f"{b}:4: question 'q-1': duplicate id (first used at {a}:4)"


def test_every_problem_is_reported_and_nothing_is_returned(tmp_path):
    text = (
        "version: 1\nfixture: retail\nquestions:\n"
        "  - id: good\n    question: fine?\n    sql: SELECT 1\n"
        "  - id: bad-1\n    question: x?\n    ordered: maybe\n    sql: SELECT 1\n"
        "  - id: bad-2\n    question: y?\n"
    )
    other = write(
        tmp_path, "version: 3\nfixture: retail\nquestions:\n  - id: z\n    question: z?\n    sql: S\n", "other.yaml"
    )
    problems = problems_of(write(tmp_path, text), other)
    where = [re.match(r"^.*?(\w+\.yaml):(\d+): (question '[\w-]+')?", p).groups() for p in problems]
    # bad-1's type, bad-2's missing sql, the other file's version; the good question is not enough
    assert where == [
        ("c.yaml", "9", "question 'bad-1'"),
        ("c.yaml", "11", "question 'bad-2'"),
        ("other.yaml", "1", None),
    ]


def test_unreadable_and_repeated_files(tmp_path):
    missing = tmp_path / "nope.yaml"
    (p,) = problems_of(missing)
    assert p.startswith(f"{missing}: cannot read the file")
    good = write(tmp_path, GOOD)
    assert any("file given more than once" in p for p in problems_of(good, good))
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"version: 1\n\xff\xfe")
    assert any("not UTF-8" in p for p in problems_of(binary))
    assert problems_of() == ["no corpus files given (the built-in corpus lives in eval/golden/sql/*.yaml)"]


def _alias_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["libyaml", "pure-python"])
def yaml_parser(request, monkeypatch):
    """Both YAML parsers PyYAML may have: libyaml's when built with it, its own Python one otherwise."""
    if request.param == "pure-python":
        monkeypatch.setattr(safe_yaml, "_YAML_LOADER", yaml.SafeLoader)
    return request.param


def test_an_alias_bomb_is_refused_at_once(tmp_path, yaml_parser):
    text = "version: 1\nfixture: retail\n" + _alias_bomb() + "questions: []\n"
    assert len(text.encode()) < 800
    (problem,) = problems_of(write(tmp_path, text))
    assert re.match(r".*c\.yaml: YAML aliases \(\*name\) are not allowed in a corpus: the value at line 3", problem)


def test_an_alias_inside_a_question_names_its_id(tmp_path):
    text = GOOD.replace("question: How many customers are there?", "question: &q How many customers are there?")
    text = text.replace("question: Delete every order.", "question: *q")
    (problem,) = problems_of(write(tmp_path, text))
    assert "question 'q-3'" in problem and "aliases" in problem


@pytest.mark.parametrize("depth", [20, 5000])
def test_nesting_past_the_limit_is_refused_with_its_line(tmp_path, depth, yaml_parser):
    text = GOOD + "  - id: q-4\n    question: Deep?\n    why: " + "[" * depth + "]" * depth + "\n"
    (problem,) = problems_of(write(tmp_path, text))
    assert "c.yaml:" in problem and ("nested deeper than" in problem or "maximum nesting depth" in problem)


@pytest.mark.parametrize("decimals", [-1, 16, 309])
def test_decimals_outside_the_sane_range_are_refused(tmp_path, decimals):
    (problem,) = problems_of(write(tmp_path, GOOD.replace("decimals: 0", f"decimals: {decimals}")))
    assert "question 'q-2'" in problem and "from 0 to 15" in problem
