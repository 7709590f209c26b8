import os

import pytest

from eval.core.markdown import code_block, escape
from eval.core.output import OutputPathError, confine, write_text


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("plain words", "plain words"),
        ("a|b", "a\\|b"),
        ("*bold* _it_", "\\*bold\\* \\_it\\_"),
        ("[link](x)", "\\[link\\](x)"),
        ("<script>", "\\<script\\>"),
        ("line1\nline2", "line1 line2"),
        ("# title", "\\# title"),
        ("- item", "\\- item"),
        ("1. first", "\\1. first"),
        ("`code`", "\\`code\\`"),
    ],
)
def test_escape(raw, expected):
    assert escape(raw) == expected


def test_escape_truncates_before_escaping():
    assert escape("abcdef", limit=4) == "abc…"


def test_code_block_cannot_be_closed_by_its_content():
    block = code_block("SELECT '```' AS x")
    fence = block.splitlines()[0]
    assert fence == "````" and block.endswith("\n````")


def test_confine_allows_inside_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    target = write_text("out/report.json", "{}")
    assert target == (tmp_path / "out" / "report.json").resolve()
    assert target.read_text() == "{}"


@pytest.mark.parametrize("path", ["../escape.json", "/etc/passwd", "sub/../../x.json"])
def test_confine_refuses_outside(tmp_path, monkeypatch, path):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    with pytest.raises(OutputPathError, match="outside"):
        confine(path)


def test_confine_follows_symlinks(tmp_path, monkeypatch):
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir(), outside.mkdir()
    os.symlink(outside, work / "link")
    monkeypatch.chdir(work)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    with pytest.raises(OutputPathError):
        confine("link/report.json")


def test_eval_output_dir_moves_the_root(tmp_path, monkeypatch):
    root = tmp_path / "reports"
    root.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(root))
    assert confine(root / "r.json") == (root / "r.json").resolve()
    with pytest.raises(OutputPathError):
        confine(tmp_path / "r.json")
