"""What every test on the shared Spider dev material shares: the folder (``../shared/data/spider-dev`` from the
repository's root, or ``$EVAL_SPIDER_DEV``), skipped with the reason said when it is missing, except under
``EVAL_REQUIRE_SPIDER=1`` (CI), where a missing folder fails the import instead of passing by skipping.

A module says ``pytestmark = needs_spider.mark`` and reads :data:`SPIDER`.
"""

from __future__ import annotations

import os

import pytest

from eval.core.errors import UsageError
from eval.sql.spider_study._sets import SpiderDev, spider_dev

SPIDER: SpiderDev | None
try:
    SPIDER = spider_dev()
    MISSING: str | None = None
except UsageError as exc:
    SPIDER, MISSING = None, f"the shared Spider dev folder is missing: {exc}"
    if os.environ.get("EVAL_REQUIRE_SPIDER") == "1":
        raise RuntimeError(f"EVAL_REQUIRE_SPIDER=1 but the Spider tests cannot run: {MISSING}") from None

mark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
