import json

import pytest

from eval.trajectory.store import GOLDEN_DIR, GoldenError, load_goldens

from ..conftest import golden_json


def test_shipped_goldens_load():
    goldens = load_goldens(GOLDEN_DIR)
    assert len(goldens) == 3
    assert len({g.task_class for g in goldens}) == 3


def test_goldens_sorted_by_id(golden_dir):
    assert [g.trajectory_id for g in load_goldens(golden_dir)] == ["a-1", "b-2", "c-3"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("expected_tools"), "missing required key(s) expected_tools"),
        (lambda d: d.update(surprise=1), "unknown key(s) surprise"),
        (lambda d: d.update(baseline_score=1.5), "baseline_score must be a number between 0 and 1"),
        (lambda d: d.update(baseline_score=True), "baseline_score must be a number between 0 and 1"),
        (lambda d: d.update(expected_tools="search"), "expected_tools must be a list"),
        (lambda d: d["expected_output"].pop("final_status"), "final_status must be a non-empty string"),
        (lambda d: d.update(trajectory_id=""), "trajectory_id must be a non-empty string"),
    ],
)
def test_malformed_golden_names_its_file(tmp_path, mutate, message):
    data = golden_json("bad-1")
    mutate(data)
    path = tmp_path / "bad-1.json"
    path.write_text(json.dumps(data))
    with pytest.raises(GoldenError) as exc:
        load_goldens(tmp_path)
    assert str(path) in str(exc.value)
    assert message in str(exc.value)


def test_invalid_json_names_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "trajectory_id": "x",\n  oops\n}')
    with pytest.raises(GoldenError, match=r"broken\.json: not a golden: .* \(line 3, column"):
        load_goldens(tmp_path)


def test_duplicate_ids_name_both_files(tmp_path):
    (tmp_path / "one.json").write_text(json.dumps(golden_json("same")))
    (tmp_path / "two.json").write_text(json.dumps(golden_json("same")))
    with pytest.raises(GoldenError, match=r"two\.json: trajectory_id 'same' is already used by .*one\.json"):
        load_goldens(tmp_path)


def test_empty_directory_is_an_error(tmp_path):
    with pytest.raises(GoldenError, match="no golden files"):
        load_goldens(tmp_path)
