"""``python -m eval.sql.spider_study``: hands over to :mod:`eval.cli.spider_study`, where the command lives (the
library layers never import the command line)."""

from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("eval.cli.spider_study", run_name="__main__", alter_sys=True)
