"""The built-in generator's own development set, graded and gated by the suite.

``tests/data/embedded_dev/`` holds questions over three schemas of :mod:`tests.schemas.dev` (a
retail shop, a library, a clinic), one database each, in tuning and held-out files; the retail
questions are also asked of the suite's own ``retail_24m`` fixture, whose comments are worded
differently. Both runs are held by their baselines (``tests/data/embedded_dev/baselines/``).

``python -m tests.question_sets dev dev_on_retail_24m`` prints the figures and any failing check.
"""

from __future__ import annotations

import pytest

from tests.question_sets import SETS, failures, totals


@pytest.mark.parametrize("name", ["dev", "dev_on_retail_24m"])
def test_dev_set_holds_its_baseline(tmp_path, name):
    code, report, err = SETS[name].run(tmp_path, "--fail-on-regression")
    assert code == 0, f"{totals(report)}\n{failures(report) or err}"
    # The generator's SQL always runs and passes the read-only guard (a block would be an error verdict).
    assert report["summary"]["error"] == 0
