"""The README's pictures cannot go stale (issue 26 point 5): each was made from the committed input its
``.source`` names, the committed run is the one the built-in baseline records, and each check fails,
naming ``make docs``, when that stops being true.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess

import pytest

from eval.cli import docs_images
from eval.core.browser import BrowserMissing, find_browser
from eval.sql.records import doc_images
from eval.sql.records.trend_file import REPO_ROOT, TREND_FILE


def test_each_committed_picture_was_made_from_the_committed_input():
    assert doc_images.stale_pictures() == []


def test_the_committed_run_is_the_one_the_builtin_baseline_records():
    assert doc_images.docs_run_differs() == []


def test_the_readme_shows_both_pictures():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for picture in doc_images.PICTURES:
        assert f"]({picture.relative_to(REPO_ROOT).as_posix()})" in readme
    assert "make docs" in readme


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum")
def test_a_source_file_is_checked_by_sha256sum_too():
    sources = [str(doc_images.source_path(p).relative_to(REPO_ROOT)) for p in doc_images.PICTURES]
    done = subprocess.run(["sha256sum", "-c", *sources], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_picture_made_from_another_input_is_named_with_the_fix(tmp_path):
    made_from, picture = tmp_path / "run.json", tmp_path / "report.png"
    made_from.write_text('{"run": 1}')
    picture.write_bytes(b"\x89PNG")
    doc_images.source_path(picture).write_text(doc_images.source_text(made_from))
    assert doc_images.stale_pictures({picture: made_from}) == []
    made_from.write_text('{"run": 2}')  # the input was replaced, the picture was not made again
    (stale,) = doc_images.stale_pictures({picture: made_from})
    assert "report.png was made from" in stale and "is stale" in stale and stale.endswith("run `make docs`")
    doc_images.source_path(picture).unlink()
    (missing,) = doc_images.stale_pictures({picture: made_from})
    assert "no report.png.source" in missing and "make docs" in missing


def test_a_run_that_is_not_the_baselines_is_named(tmp_path):
    baseline = doc_images.builtin_baseline()
    run = json.loads(doc_images.DOCS_RUN.read_text())
    run["questions"][0]["verdict"] = "error" if run["questions"][0]["verdict"] != "error" else "pass"
    run["corpus"]["digest"] = "0" * 64
    (tmp_path / "run.json").write_text(json.dumps(run))
    differs = doc_images.docs_run_differs(tmp_path / "run.json", baseline)
    assert len(differs) == 2 and all("make docs" in d for d in differs)
    assert "corpus digest 0000000000000000" in differs[0]
    assert f"1 question(s) with another verdict or missing: {run['questions'][0]['id']}" in differs[1]
    assert doc_images.docs_run_differs(tmp_path / "none.json", baseline) == [
        f"{tmp_path}/none.json: missing; run `make docs`"
    ]


def test_check_exits_1_naming_what_is_stale(monkeypatch, tmp_path, capsys):
    assert docs_images.main(["--check"]) == 0
    made_from = tmp_path / "trend.jsonl"
    made_from.write_text("{}\n")
    monkeypatch.setitem(doc_images.PICTURES, doc_images.TREND_PICTURE, made_from)
    assert docs_images.main(["--check"]) == 1
    assert "docs/eval/sql-trend.png was made from" in capsys.readouterr().err


def test_make_docs_makes_each_picture_and_its_source(tmp_path):
    """What ``make docs`` does, into a temporary folder: the committed files are left as they are."""
    try:
        find_browser()
    except BrowserMissing as exc:
        if os.environ.get("EVAL_REQUIRE_BROWSER") == "1":
            raise
        pytest.skip(str(exc))
    pictures = {tmp_path / "report.png": doc_images.DOCS_RUN, tmp_path / "trend.png": TREND_FILE}
    assert doc_images.stale_pictures(pictures) != [], "the control: nothing made yet"
    assert docs_images.make_pictures(pictures) == 0
    for picture in pictures:
        head = picture.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", head[16:20])[0] == 1280, picture
    assert doc_images.stale_pictures(pictures) == []
