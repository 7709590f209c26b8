"""No run of six lines is copied from one source file into another (issue 35 point 6: one place per fact).

A copy is six or more consecutive code lines that stand, the same to the letter once white space is folded,
in two source files (the eval, the service and the benchmarks; not tests). Blank lines, comments, docstrings,
imports and lines of lone brackets are passed over, as they say nothing twice. A run found in more than
:data:`TOO_COMMON` places is an idiom, not a copy. What is copied belongs in one function or table of the
module that owns the concept, imported by the others; a pair that cannot be shared is listed in
:data:`ALLOWED` with the reason. Copies with other names (same shape, other words) are not caught here:
``docs/eval/architecture.md`` ("A fact is written once") says what those are.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[3]
SOURCES = ("eval", "services", "benchmarks")
RUN = 6
TOO_COMMON = 8

ALLOWED = {
    ("eval/sql/counterexample/judging.py", "eval/sql/grading/refuting.py"): (
        "the counterexample search's judge and grading's search_one take the same seven parameters "
        "(a question, its SQL and the reference's executions); the counterexample package is another round's"
    ),
    ("eval/sql/rows/_compare.py", "eval/sql/rows/_ties.py"): (
        "compare_results and compare_with_ties are public and take the same keyword options, each spelled "
        "out so a caller's type checker and help() see them; the work behind them is one (compare_settled)"
    ),
    ("services/embedded/index.py", "services/embedded/plan.py"): (
        "typed accessors (column_name, metric_name) of two unrelated records of the built-in generator, "
        "a baseline that is not reshaped"
    ),
}
"""Pairs of files that may share a run, each with why it stays."""

_PUNCTUATION = re.compile(r"^[\s()\[\]{},:;]*$")


def code_lines(source: str) -> list[tuple[int, str]]:
    """Each line of ``source`` that counts, numbered from 1, its white space folded."""
    skipped: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        docstring = (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        )
        if isinstance(node, ast.Import | ast.ImportFrom) or docstring:
            assert isinstance(node, ast.stmt)
            skipped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        folded = " ".join(line.split())
        if number in skipped or not folded or folded.startswith("#") or _PUNCTUATION.match(folded):
            continue
        out.append((number, folded))
    return out


def copies(files: dict[str, str]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Every pair of files (by name) sharing a run of :data:`RUN` lines, with the first line of each run in each."""
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, source in files.items():
        lines = code_lines(source)
        for i in range(len(lines) - RUN + 1):
            places[tuple(text for _, text in lines[i : i + RUN])].append((name, lines[i][0]))
    pairs: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for where in places.values():
        names = sorted({name for name, _ in where})
        if len(names) < 2 or len(where) > TOO_COMMON:
            continue
        first = {name: min(line for n, line in where if n == name) for name in names}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                pairs[(a, b)].append((first[a], first[b]))
    return dict(pairs)


def _sources() -> dict[str, str]:
    return {
        path.relative_to(BACKEND).as_posix(): path.read_text(encoding="utf-8")
        for top in SOURCES
        for path in sorted((BACKEND / top).rglob("*.py"))
        if "tests" not in path.relative_to(BACKEND).parts
    }


def test_no_source_file_copies_six_lines_of_another() -> None:
    found = copies(_sources())
    new = [f"{a}:{found[a, b][0][0]} ~ {b}:{found[a, b][0][1]}" for a, b in sorted(found) if (a, b) not in ALLOWED]
    assert not new, (
        "these runs of six lines are copied between source files: put them in one function or table of the module "
        "that owns the concept and import it (or, if they cannot be shared, list the pair in ALLOWED of "
        "eval/tests/project/test_duplication.py with the reason):\n" + "\n".join(new)
    )


def test_every_allowed_pair_still_shares_a_run() -> None:
    stale = sorted(set(ALLOWED) - set(copies(_sources())))
    assert not stale, f"no longer copies: take them out of ALLOWED in eval/tests/project/test_duplication.py: {stale}"


BODY = "\n".join(f"    total += {n} * weight" for n in range(RUN - 1))


def _module(extra: str = "") -> str:
    return f'"""A module."""\n\nimport os\n\n\ndef f(weight):\n    total = 0\n{BODY}\n{extra}    return total\n'


def test_six_shared_lines_in_two_files_are_a_copy_and_five_are_not() -> None:
    found = copies({"a.py": _module(), "b.py": "x = 1\n" + _module()})
    assert list(found) == [("a.py", "b.py")] and found["a.py", "b.py"][0] == (6, 7)
    five = _module().replace("total = 0", "total = 1").replace("return total", "return -total")
    assert copies({"a.py": _module(), "b.py": five}) == {}


def test_comments_docstrings_imports_and_blanks_do_not_count_nor_break_a_run() -> None:
    noisy = _module().replace("    total = 0\n", '    total = 0\n    # why\n\n    """Said."""\n    import re\n')
    assert copies({"a.py": _module(), "b.py": noisy})["a.py", "b.py"][0] == (6, 6)
    assert [text for _, text in code_lines(noisy)] == [text for _, text in code_lines(_module())]
    assert code_lines("x = f(\n    1\n)\n") == [(1, "x = f("), (2, "1")]


def test_a_run_in_more_places_than_too_common_is_an_idiom() -> None:
    assert copies({f"m{i}.py": _module() for i in range(TOO_COMMON)}) != {}
    assert copies({f"m{i}.py": _module() for i in range(TOO_COMMON + 1)}) == {}
