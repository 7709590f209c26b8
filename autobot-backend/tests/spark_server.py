"""The tests' throwaway Spark server: :mod:`eval.sql.engines.spark_server`, plus the rule for a machine without one.

Without pyspark, pyhive or Java a Spark test is skipped, unless ``EVAL_REQUIRE_SPARK=1`` (``.ci/run`` sets it
after installing them), where it fails: CI may not skip what it must test.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from eval.sql.engines.spark_server import SparkServer, SparkUnavailable, start

__all__ = ["REQUIRE_ENV", "SparkServer", "start_for_tests"]

REQUIRE_ENV = "EVAL_REQUIRE_SPARK"
"""Set to ``1`` (CI does) to make a missing Spark or Java a test failure instead of a skip."""


def start_for_tests(environ: Mapping[str, str] | None = None) -> SparkServer:
    """:func:`start`, or skip the calling test when Spark is not installed (fail under ``REQUIRE_ENV=1``)."""
    import pytest

    env = os.environ if environ is None else environ
    try:
        return start()
    except SparkUnavailable as exc:
        if env.get(REQUIRE_ENV, "").strip() == "1":
            pytest.fail(
                f"{exc}. {REQUIRE_ENV}=1 is set, so the Spark tests may not be skipped "
                "(.ci/run installs Java and the spark extra first).",
                pytrace=False,
            )
        pytest.skip(str(exc))
