"""``python -m eval.sql.near_miss``: hands over to :mod:`eval.cli.near_miss`, where the command lives.

The command is spelled as issue 25 spells it; the hand-over happens when the module is run, so the
library layers (which never import the command line) stay as they are.
"""

from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("eval.cli.near_miss", run_name="__main__", alter_sys=True)
