"""``python -m eval.sql.init``: hands over to :mod:`eval.cli.init`, where the command lives.

The command is spelled under ``eval.sql`` for whoever writes a corpus; the hand-over happens when the module is
run, so the library layers (which never import the command line) stay as they are.
"""

from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("eval.cli.init", run_name="__main__", alter_sys=True)
