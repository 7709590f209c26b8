"""``python -m eval.sql.check``: hands over to :mod:`eval.cli.check`, where the command lives.

The command is spelled under ``eval.sql`` for whoever writes a corpus; the hand-over happens when the module is
run, so the library layers (which never import the command line) stay as they are.
"""

from __future__ import annotations

import runpy

if __name__ == "__main__":
    runpy.run_module("eval.cli.check", run_name="__main__", alter_sys=True)
