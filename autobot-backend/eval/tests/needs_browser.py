"""What every browser test module shares: skip without Chromium, except under ``EVAL_REQUIRE_BROWSER=1``
(CI), where a missing browser fails the import instead of passing by skipping.

A module says ``pytestmark = needs_browser.mark`` (or reads :data:`MISSING`).
"""

from __future__ import annotations

import os

import pytest

from eval.core.browser import BrowserMissing, find_browser

try:
    find_browser()
    MISSING: str | None = None
except BrowserMissing as exc:
    MISSING = str(exc)
    if os.environ.get("EVAL_REQUIRE_BROWSER") == "1":
        raise RuntimeError(f"EVAL_REQUIRE_BROWSER=1 but the browser tests cannot run: {MISSING}") from None

mark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
