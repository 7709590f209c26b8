"""``python -m eval.merge``: the command lives in :mod:`eval.cli.merge`."""

import sys

from eval.cli.merge import main

if __name__ == "__main__":
    sys.exit(main())
