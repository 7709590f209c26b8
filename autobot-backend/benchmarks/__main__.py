"""Run every ``benchmarks/bench_*.py`` module's ``run()`` in name order, or only those named.

Usage (from ``autobot-backend/``): ``python -m benchmarks [name ...]``.

The fresh processes the benchmarks time should start as a user's second run does, on a warm cache: the
project's bytecode is compiled first (``compileall``), so a process never compiles the project from its
source. Where ``PYTHONDONTWRITEBYTECODE`` is set (as in some sandboxes and CI images) Python writes no
``__pycache__`` itself, and every process would pay some 0.2-0.3 s of compiling that no user's run does.
"""

from __future__ import annotations

import compileall
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
    warm_bytecode(here.parent)
    for name in wanted or names:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"benchmarks.{name}").run()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


def warm_bytecode(backend: Path) -> None:
    """Compile the project's packages to ``__pycache__`` (ignored by git), as a first run would have left them."""
    for package in ("eval", "services", "benchmarks", "tests"):
        compileall.compile_dir(backend / package, quiet=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
