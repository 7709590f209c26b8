"""No function of the eval's source is past complexity D without a comment saying why (issue 35 point 6).

Complexity is radon's cyclomatic complexity and its ranks (A-F; D is 21-30): a function ranked E or F
carries, in the comment lines right above its ``def`` (or its decorators), a line beginning
``# Complexity`` that says why it is kept as one function.
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_rank, cc_visit
from radon.visitors import Class, Function

EVAL = Path(__file__).resolve().parents[2]
MARK = "# Complexity"


def _functions(blocks: list[Function | Class]) -> list[Function]:
    found: list[Function] = []
    for b in blocks:
        if isinstance(b, Class):
            found.extend(_functions(list(b.methods)))
        else:
            found.append(b)
            found.extend(_functions(list(b.closures)))
    return found


def unexplained(source: str) -> list[str]:
    """Each function of ``source`` ranked past D with no ``# Complexity`` comment above it."""
    lines = source.splitlines()
    missing = []
    seen = set()
    for f in _functions(cc_visit(source)):  # radon lists a method both alone and under its class
        if (f.lineno, f.fullname) in seen:
            continue
        seen.add((f.lineno, f.fullname))
        if cc_rank(f.complexity) in "ABCD":
            continue
        at = f.lineno - 2  # the line above the def (lineno counts from 1)
        while at >= 0 and lines[at].lstrip().startswith("@"):
            at -= 1
        comments = []
        while at >= 0 and lines[at].lstrip().startswith("#"):
            comments.append(lines[at].lstrip())
            at -= 1
        if not any(c.startswith(MARK) for c in comments):
            missing.append(f"{f.fullname} ({cc_rank(f.complexity)}, {f.complexity})")
    return missing


def test_every_function_past_d_says_why() -> None:
    missing = [
        f"{path.relative_to(EVAL.parent)}: {name}"
        for path in sorted(EVAL.rglob("*.py"))
        if "tests" not in path.relative_to(EVAL).parts
        for name in unexplained(path.read_text(encoding="utf-8"))
    ]
    assert not missing, "functions past complexity D with no '# Complexity ...' comment saying why:\n" + "\n".join(
        missing
    )


_COMPLEX = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(35)) + "    return -1\n"


def test_the_check_finds_a_complex_function_without_its_comment() -> None:
    assert unexplained(_COMPLEX) == ["f (E, 36)"]
    assert unexplained("# Complexity: one branch per value, as the table reads.\n" + _COMPLEX) == []
    decorated = "import functools\n# Complexity: one branch per value.\n@functools.cache\n" + _COMPLEX
    assert unexplained(decorated) == []
    assert unexplained("# an ordinary comment\n" + _COMPLEX) == ["f (E, 36)"]


def test_a_method_and_a_closure_are_read_too() -> None:
    method = "class C:\n" + "\n".join("    " + line for line in _COMPLEX.splitlines())
    assert unexplained(method) == ["C.f (E, 36)"]
    body = "\n".join("    " + line for line in _COMPLEX.splitlines())
    closure = "def outer():\n" + body + "\n    return f\n"
    assert [n.split(" ")[0] for n in unexplained(closure)] == ["f"]
