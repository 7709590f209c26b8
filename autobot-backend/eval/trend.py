"""``python -m eval.trend``: the command; the code is :mod:`eval.tools.trend`."""

import sys

from eval.tools.trend import main

if __name__ == "__main__":
    sys.exit(main())
