"""The JSON Lines reader behind the answers, captured-turns, labels and trend files."""

from __future__ import annotations

import pytest

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file, json_lines
from eval.turns.calibration import LabelsFileError, load_labels


def test_lines_are_numbered_as_in_the_file_blank_ones_skipped_and_bad_json_carried(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n   \n[2]\nnot json\n', encoding="utf-8")
    lines = list(json_lines(path, HarnessError, missing="m", unreadable="u"))
    assert [(x.number, x.where, x.value) for x in lines[:2]] == [(1, f"{path}:1", {"a": 1}), (4, f"{path}:4", [2])]
    assert lines[2].number == 5 and lines[2].value is None and lines[2].error is not None
    assert len(lines) == 3


def test_a_missing_or_unreadable_file_raises_the_callers_error_naming_the_file(tmp_path):
    with pytest.raises(LabelsFileError, match=r"nope\.jsonl: no such labels file"):
        load_labels(tmp_path / "nope.jsonl")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"turn_id": "caf\xe9"}\n')
    with pytest.raises(LabelsFileError, match=r"latin\.jsonl: cannot read the labels file: .*utf-8"):
        load_labels(latin)


def test_a_labels_line_that_is_not_json_is_named_by_line_and_column(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"turn_id": "t1", "score": 80, "band": "good"}\n{"turn_id": \n', encoding="utf-8")
    with pytest.raises(LabelsFileError, match=r"labels\.jsonl:2: not valid JSON \(column \d+: "):
        load_labels(path)


def test_a_whole_json_file_is_read_or_refused_by_path(tmp_path):
    class Bad(Exception):
        pass

    good, broken, binary = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    good.write_text('{"x": [1, 2]}')
    broken.write_text('{"x": ')
    binary.write_bytes(b"\xff\xfe{")
    assert json_file(good, Bad, missing="gone", unreadable="bad") == {"x": [1, 2]}
    for path, message in (
        (tmp_path / "none.json", "none.json: gone"),
        (broken, "b.json: bad: "),
        (binary, "c.json: bad: "),
    ):
        with pytest.raises(Bad, match=message):
            json_file(path, Bad, missing="gone", unreadable="bad")
