"""``python benchmarks/_testsuite_eval.py PEERS ARGS...``: the Spider test-suite's own ``evaluation.py`` run with
``ARGS``, unchanged, from the shared folder of the peers' code (``../shared/peers``, never copied).

One thing is set first: its ``process_sql`` tokenizes each query with NLTK's ``word_tokenize``, which splits the
text into sentences with the Punkt model, data NLTK downloads at run time, which cannot be fetched here. A query
is one line of one sentence, so ``word_tokenize(..., preserve_line=True)`` (no sentence split) gives the words it
would; it is only read for each pair's hardness, never for an execution verdict.
"""

from __future__ import annotations

import functools
import runpy
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    peers, *args = argv
    import nltk  # type: ignore[import-untyped]

    nltk.word_tokenize = functools.partial(nltk.word_tokenize, preserve_line=True)
    folder = Path(peers) / "test-suite-sql-eval"
    sys.path.insert(0, str(folder))
    sys.argv = ["evaluation.py", *args]
    runpy.run_path(str(folder / "evaluation.py"), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
