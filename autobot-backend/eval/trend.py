"""``python -m eval.trend``: the command lives in :mod:`eval.cli.trend`."""

import sys

from eval.cli.trend import main

if __name__ == "__main__":
    sys.exit(main())
