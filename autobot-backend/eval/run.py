"""``python -m eval.run [--suite trajectory|sql|turns]`` (run from ``autobot-backend/``).

The command line is :mod:`eval.cli.run`: one parser per suite, the exit codes of
:mod:`eval.core.exit_codes` (0 examined and fine, 1 examined and regressed, 2 could not examine or judge).
"""

from __future__ import annotations

import sys

try:  # an import failure is a crash: exit 2, never the interpreter's 1
    from eval.cli.run import main
except Exception as failure:  # pragma: no cover - exercised by a broken install only
    try:
        from eval.core.crash import print_traceback
    except Exception:  # not even that: the traceback is withheld, it may hold a secret
        print(f"{type(failure).__name__} while importing the harness", file=sys.stderr)
    else:
        print_traceback()
    print("error: the harness failed to import; run `make eval` to (re)install it", file=sys.stderr)
    sys.exit(2)

__all__ = ["main"]

if __name__ == "__main__":
    from eval.core.process_exit import exit_process

    exit_process(main())
