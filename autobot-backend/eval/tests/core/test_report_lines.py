"""A long report printed a block at a time (``print_report_lines``) is the same characters as printed whole
(``print_report``): made inert, secrets masked, workflow commands neutralised, wherever the blocks are cut."""

from __future__ import annotations

import random

import pytest

from eval.core import output
from eval.core.output import print_report, print_report_lines

TRICKY = [
    "::error file=x::forged",
    "  ::stop-commands::tok",
    "a ##[add-mask]b",
    "\x1b[2Jcleared",
    "see postgresql://user:hunter2@db.example/x",
    "| q1 | near-duplicate — similarity 100 ≥ 85 |",
    "",
    "plain",
]


def _lines(rng: random.Random) -> list[str]:
    lines = []
    for _ in range(rng.randint(0, 60)):
        if rng.random() < 0.2:  # one string holding many lines, as a section's table is
            lines.append("\n".join(rng.choice(TRICKY) for _ in range(rng.randint(2, 40))))
        else:
            lines.append(rng.choice(TRICKY))
    return lines


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("chars", [1, 7, 64, 1 << 18])
@pytest.mark.parametrize("made", ["list", "as printed"])
def test_printed_in_blocks_is_printed_whole(seed, chars, made, capsys, monkeypatch):
    lines = _lines(random.Random(seed))
    print_report("\n".join(lines))
    whole = capsys.readouterr().out
    monkeypatch.setattr(output, "CHARS_PER_WRITE", chars)
    print_report_lines(lines if made == "list" else (line for line in lines))  # a run's stdout: made as printed
    assert capsys.readouterr().out == whole
    assert "hunter2" not in whole and "\n::" not in "\n" + whole  # the whole is inert, so the blocks are


def test_a_secret_that_spans_lines_is_masked_as_in_the_whole(capsys, monkeypatch):
    monkeypatch.setattr(output, "known_secrets", lambda: frozenset({"line one\nline two"}))
    monkeypatch.setattr(output, "CHARS_PER_WRITE", 4)
    calls: list[str] = []
    monkeypatch.setattr(output, "print_report", lambda text: calls.append(text))
    print_report_lines(["a", "line one", "line two", "b"])
    assert calls == ["a\nline one\nline two\nb"]  # printed whole, where the mask sees it


@pytest.mark.parametrize("lines", [[], [""], ["x", ""]])
def test_a_report_of_no_lines_or_empty_ones_prints_as_whole_from_a_list_or_as_made(lines, capsys):
    print_report("\n".join(lines))
    whole = capsys.readouterr().out
    print_report_lines(lines)
    assert capsys.readouterr().out == whole
    print_report_lines(iter(lines))
    assert capsys.readouterr().out == whole
