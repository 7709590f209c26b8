"""Run every ``benchmarks/bench_*.py`` module's ``run()`` in name order, or only those named.

Usage (from ``autobot-backend/``): ``python -m benchmarks [name ...]``.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(p.stem for p in here.glob("bench_*.py"))
    wanted = [n if n.startswith("bench_") else f"bench_{n}" for n in argv]
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        print(f"error: unknown benchmark(s) {', '.join(unknown)}; available: {', '.join(names)}", file=sys.stderr)
        return 2
    for name in wanted or names:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"benchmarks.{name}").run()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
