"""The corpus format's JSON Schema: committed as generated, and in agreement with the loader on every key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from eval.sql.corpus import json_schema
from eval.sql.corpus.questions import (
    FILE_KEYS,
    MAX_DECIMALS,
    QUESTION_KEYS,
    CorpusError,
    builtin_corpus_files,
    load_corpus,
)

SCHEMA = Draft202012Validator(json_schema.corpus_schema())

BASE = {"id": "q-1", "question": "How many?", "sql": "SELECT 1"}

# key -> (values the loader takes, values it refuses). Every question key must be here: a key added to the
# model without a sample fails test_every_key_has_samples, so the agreement below covers it.
SAMPLES: dict[str, tuple[list[Any], list[Any]]] = {
    "id": (["q-2", "a.b_c"], ["", "a b", "a\n", 3, None]),
    "question": (["How many?", " x "], ["", "   ", 3, None, ["x"]]),
    "expect": (["answer"], ["maybe", "", True, None]),
    "stratum": (["scalar", "x y"], ["", " ", 1, None]),
    "shape": (["scalar", "rows"], ["table", "", 1, None]),
    "ordered": ([True, False], ["yes", 1, 0, None]),
    "ordered_from": (["question", "sql"], ["SQL", "words", "", True, None]),
    "decimals": ([0, 2, MAX_DECIMALS], [-1, MAX_DECIMALS + 1, "2", True, 2.5, None]),
    "static": ([True, False], ["no", 1, None]),
    "fixture": (["retail", "anything"], ["", " ", 1, None]),
    "database": (["shop", "my db", "..."], ["", ".", "..", "a/b", "a\\b", " a", "a ", "a\n", "a\x00b", 1, None]),
    "difficulty": (["simple", " moderate "], ["", " ", "a\nb", 1, None]),
    "column_order": (["positional", "any"], ["random", "", None]),
    "row_cap": ([1, 100_000, 1_000_000], [0, -5, "100", True, 2.5, None]),
    "sql": (["SELECT 2"], ["", "  ", 1, None]),
    "also": ([["SELECT 3"], ["SELECT 3", "SELECT 4"]], [[], "SELECT 3", [""], [1], ["SELECT 1"] * 9, None]),
    "columns": (
        [{"required": ["id"], "optional": ["name", 2]}, {"required": [1]}, {"optional": ["a"]}],
        [
            {},
            {"required": []},
            {"required": ["id", "id"]},
            {"required": [0]},
            {"required": [1.5]},
            {"optional": list("abcdefg")},
            {"wanted": ["id"]},
            ["id"],
            None,
        ],
    ),
    "why": (["", "because", "x\n"], ["a\nb", 1, None]),
    "draft": ([True, False], ["true", 1, None]),
    "exact_match": (["official", "extended", "spider"], ["Spider", "Official", "bird", "", True, None]),
}
FILE_SAMPLES: dict[str, tuple[list[Any], list[Any]]] = {
    "version": ([1], [2, 0, "1", None, True]),
    "fixture": (["retail"], ["", 1, None]),
    "database": (["shop"], ["", "a/b", "..", None]),
    "column_order": (["any"], ["random", None]),
    "exact_match": (["official", "extended", "spider"], ["exact", 1, None]),
    "row_cap": ([50_000], [0, "1", False, None]),
    "ordered_from": (["sql"], ["reference", 1, None]),
    "questions": ([[BASE]], [[], "x", None, [3]]),
    "gate": (
        [
            {"pass_rate": {"tolerance": 5}},
            {"refusal_recall": {"tolerance": 0, "min": 85}, "over_refusals": {"max": 15}},
            {"pass_rate": {"min": 50.5}, "composition": {"tolerance": 2}},
        ],
        [
            {},
            None,
            "strict",
            {"pass_rate": {}},
            {"pass_rate": 2},
            {"pass_rate": {"tolerance": -1}},
            {"pass_rate": {"tolerance": 101}},
            {"pass_rate": {"tolerance": "2"}},
            {"pass_rate": {"tolerance": True}},
            {"pass_rate": {"max": 90}},
            {"over_refusals": {"min": 10}},
            {"composition": {"tolerance": 1.5}},
            {"composition": {"min": 1}},
            {"recall": {"tolerance": 2}},
        ],
    ),
    "sample_values": ([True, False], ["no", 0, None]),
    "skipped": (
        [[{"id": "s-1", "reason": "missing database", "database": "wta_1"}], [{"id": "s-2", "reason": "gone"}]],
        [
            [],
            "x",
            None,
            [{"id": "a b", "reason": "r"}],
            [{"id": "s-3"}],
            [{"id": "s-4", "reason": "r", "extra": 1}],
            [{"id": "s-5", "reason": "a\nb"}],
            [{"id": "s-6", "reason": "r", "database": "a/b"}],
        ],
    ),
}


def loader_accepts(tmp_path: Path, data: Any) -> bool:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    try:
        load_corpus([path], fixtures=None)
    except CorpusError:
        return False
    return True


def schema_accepts(data: Any) -> bool:
    return SCHEMA.is_valid(data)


def _among(value: Any, values: list[Any]) -> bool:
    return any(value == v and type(value) is type(v) for v in values)


def test_the_committed_schema_is_the_generated_one():
    committed = json_schema.SCHEMA_PATH.read_text(encoding="utf-8")
    assert committed == json_schema.schema_text(), (
        f"{json_schema.SCHEMA_PATH.name} differs from the corpus model: run {json_schema.UPDATE_COMMAND} "
        "(from autobot-backend/) and commit the result"
    )


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(json.loads(json_schema.SCHEMA_PATH.read_text(encoding="utf-8")))


def test_every_key_has_samples_and_a_description():
    assert set(SAMPLES) == set(QUESTION_KEYS)
    assert set(FILE_SAMPLES) == set(FILE_KEYS)
    props = json_schema.corpus_schema()["$defs"]["question"]["properties"]
    assert all(props[k]["description"] for k in QUESTION_KEYS), "a Question field in QUESTION_KEYS has no docstring"
    assert props["decimals"]["maximum"] == MAX_DECIMALS and props["decimals"]["default"] == 2
    assert props["shape"]["enum"] == ["scalar", "rows"] and props["shape"]["default"] == "rows"
    assert "sql_postgresql" in props and "sql_duckdb" in props


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_schema_and_loader_agree_on_every_question_key(tmp_path, key):
    good, bad = SAMPLES[key]
    for value in [*good, *bad]:
        question = {**BASE, key: value}
        data = {"version": 1, "questions": [question]}
        loader, schema = loader_accepts(tmp_path, data), schema_accepts(data)
        assert loader == schema, f"{key}={value!r}: loader {'accepts' if loader else 'refuses'}, schema differs"
        assert loader == _among(value, good), f"{key}={value!r}: the sample is in the wrong list"


@pytest.mark.parametrize("key", sorted(FILE_SAMPLES))
def test_schema_and_loader_agree_on_every_file_key(tmp_path, key):
    good, bad = FILE_SAMPLES[key]
    for value in [*good, *bad]:
        data = {"version": 1, "questions": [BASE], key: value}
        loader, schema = loader_accepts(tmp_path, data), schema_accepts(data)
        assert loader == schema, f"file {key}={value!r}: loader {'accepts' if loader else 'refuses'}, schema differs"
        assert loader == _among(value, good), f"file {key}={value!r}: the sample is in the wrong list"


@pytest.mark.parametrize(
    ("case", "question"),
    [
        ("an unknown key", {**BASE, "sqll": "SELECT 1"}),
        ("an unknown dialect", {**BASE, "sql_nosuchdb": "SELECT 1"}),
        ("no question", {"id": "q-1", "sql": "SELECT 1"}),
        ("no id", {"question": "How many?", "sql": "SELECT 1"}),
        ("answer without sql", {"id": "q-1", "question": "How many?"}),
        ("refuse with sql", {**BASE, "expect": "refuse"}),
        ("refuse with shape", {"id": "q-1", "question": "Why?", "expect": "refuse", "shape": "rows"}),
        ("refuse with ordered", {"id": "q-1", "question": "Why?", "expect": "refuse", "ordered": False}),
        ("refuse with a dialect", {"id": "q-1", "question": "Why?", "expect": "refuse", "sql_duckdb": "SELECT 1"}),
        ("fixture and database", {**BASE, "fixture": "retail", "database": "shop"}),
    ],
)
def test_the_schema_rejects_what_the_loader_rejects(tmp_path, case, question):
    data = {"version": 1, "questions": [question]}
    assert not loader_accepts(tmp_path, data), case
    assert not schema_accepts(data), case


def test_the_rules_between_keys_accept_what_the_loader_accepts(tmp_path):
    for question in (
        {"id": "q-1", "question": "Why?", "expect": "refuse", "why": "no such data"},
        {**BASE, "sql_postgresql": "SELECT 1", "sql_duckdb": "SELECT 1"},
        {**BASE, "expect": "answer", "shape": "scalar", "ordered": True, "fixture": "retail"},
    ):
        data = {"version": 1, "questions": [question]}
        assert loader_accepts(tmp_path, data) and schema_accepts(data), question
    both = {"version": 1, "fixture": "retail", "database": "shop", "questions": [BASE]}
    assert not loader_accepts(tmp_path, both) and not schema_accepts(both)


@pytest.mark.parametrize("path", builtin_corpus_files(), ids=lambda p: p.name)
def test_the_builtin_corpus_files_validate(path):
    errors = sorted(SCHEMA.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8"))), key=str)
    assert errors == [], f"{path.name}: " + "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
