"""The built-in generator on blind set 3: a pure holdout, graded as totals only.

``tests/data/embedded_blind3/`` was written by someone who never saw the generator, with no tune
split: nobody working on the generator reads it, its baseline or this test's output while working
on it. It is held by its baseline through the suite's own gate; a failure here shows totals only
and names no question. ``python -m tests.question_sets blind3`` prints the totals.
"""

from __future__ import annotations

from tests.question_sets import SETS, leaks, totals


def test_holdout_holds_its_baseline(tmp_path):
    """Totals only: a failure here names no question."""
    code, report, _ = SETS["blind3"].run(tmp_path, "--fail-on-regression")
    checks = [c["name"] for c in report.get("gate", {}).get("checks", []) if c.get("ok") is not True]
    assert code == 0, f"{totals(report)}; failing checks: {', '.join(checks) or 'none (see the exit code)'}"


def test_no_holdout_phrase_is_in_the_generator():
    """Counted, not shown."""
    found = len(leaks(SETS["blind3"]))
    assert found == 0, f"{found} six-word phrase(s) of blind set 3 appear in the generator"
