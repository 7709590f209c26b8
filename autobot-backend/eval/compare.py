"""``python -m eval.compare``: the command lives in :mod:`eval.cli.compare`."""

import sys

from eval.cli.compare import main

if __name__ == "__main__":
    sys.exit(main())
