"""The captured-turns file: the shipped example loads, a bad line names file, line, turn and what to fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from eval.turns.format import Turn, TurnsFileError, dump_turns, load_turns, parse_turn

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "eval" / "examples" / "turns.jsonl"


@pytest.fixture
def example(tmp_path) -> Path:
    return Path(shutil.copy(EXAMPLE, tmp_path / "turns.jsonl"))


def test_the_documented_example_loads(example):
    turns = load_turns(example)
    assert [t.turn_id for t in turns] == [
        "ex-revenue-q4",
        "ex-top-countries",
        "ex-delete-request",
        "ex-recovered-typo",
        "ex-all-failed",
        "ex-figures-from-nowhere",
        "ex-declined-out-of-schema",
    ]
    blocked = turns[2].trajectory[0]
    assert blocked.status == "blocked" and blocked.error_kind == "guard_blocked" and blocked.rows == ()
    assert turns[1].answer is None and turns[6].declined == "the schema has no supplier or cost data"
    assert [s.status for s in turns[3].trajectory] == ["error", "ok"] and turns[3].trajectory[1].rows == ((97,),)


def test_a_turn_round_trips_through_the_file(example, tmp_path):
    turns = load_turns(example)
    again = tmp_path / "again.jsonl"
    again.write_text(dump_turns([t.to_json() for t in turns]))
    assert load_turns(again) == turns
    assert [t.digest() for t in load_turns(again)] == [t.digest() for t in turns]


def test_the_judge_sees_the_evidence_but_never_the_id_or_meta():
    t = parse_turn(
        {
            "turn_id": "secret-id",
            "time": "2026-12-01T10:00:00Z",
            "question": "q?",
            "trajectory": [],
            "meta": {"verdict": "wrong"},
        }
    )
    shown = json.dumps(t.evidence())
    assert "secret-id" not in shown and "wrong" not in shown and "meta" not in shown


GOOD = {"turn_id": "t-1", "time": "2026-12-01T10:00:00Z", "question": "How many?", "trajectory": []}
STEP = {"sql": "SELECT 1", "status": "ok", "row_count": 1, "columns": ["n"], "rows": [[1]]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"turn_id": ""}, "turn_id must be a non-empty string"),
        ({"question": "  "}, "turn 't-1': question must be a non-empty string"),
        ({"time": "yesterday"}, "turn 't-1': time must be an ISO 8601 timestamp"),
        ({"trajectory": "SELECT 1"}, "trajectory must be a list"),
        ({"colour": "red"}, "unknown key(s) colour"),
        ({"version": 2}, "version 2 is not 1"),
        ({"answer": 42}, "answer must be a non-empty string or null"),
        ({"trajectory": [STEP | {"status": "done"}]}, "trajectory[0].status must be one of ok, error, blocked"),
        ({"trajectory": [STEP | {"row_count": -1}]}, "trajectory[0].row_count must be a whole number"),
        ({"trajectory": [STEP | {"row_count": 0}]}, "row_count must be the number of rows returned"),
        ({"trajectory": [STEP | {"rows": [[i] for i in range(21)], "row_count": 21}]}, "keeps 21 rows"),
        ({"trajectory": [STEP | {"status": "error"}]}, "did not run (status error): say why in error"),
        ({"trajectory": [STEP | {"status": "error", "error": "x"}]}, "did not run (status error) but carries rows"),
        ({"trajectory": [STEP | {"error": "x"}]}, "ran (status ok) but has an error"),
        ({"trajectory": [STEP | {"result": 1}]}, "trajectory[0] has unknown key(s) result"),
        ({"tools": "search"}, "tools must be a list of tool names"),
    ],
)
def test_a_bad_turn_names_the_file_the_line_the_turn_and_what_is_wrong(tmp_path, change, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD | {"turn_id": "t-0"}) + "\n" + json.dumps(GOOD | change) + "\n")
    with pytest.raises(TurnsFileError) as err:
        load_turns(path)
    assert f"{path}:2" in str(err.value) and message in str(err.value)


def test_a_line_that_is_not_json_a_duplicate_id_and_an_empty_file_are_refused(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{oops\n")
    with pytest.raises(TurnsFileError, match=r"t\.jsonl:2: not valid JSON"):
        load_turns(path)
    path.write_text(json.dumps(GOOD) + "\n\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(TurnsFileError, match=r"t\.jsonl:3: turn 't-1' is already on line 1"):
        load_turns(path)
    path.write_text("\n")
    with pytest.raises(TurnsFileError, match="no turns"):
        load_turns(path)
    with pytest.raises(TurnsFileError, match="no such captured-turns file"):
        load_turns(tmp_path / "missing.jsonl")


def test_a_turn_is_plain_data():
    t = parse_turn(GOOD | {"trajectory": [STEP], "answer": "One."})
    assert isinstance(t, Turn) and t.trajectory[0].returned_rows and t.answer == "One."
