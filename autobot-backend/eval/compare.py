"""``python -m eval.compare``: the command; the code is :mod:`eval.tools.compare_runs`."""

import sys

from eval.tools.compare_runs import main

if __name__ == "__main__":
    sys.exit(main())
