"""Every module, object and file the docs name exists: a renamed module cannot leave a page pointing at nothing.

The pages are ``docs/eval/*.md`` and the README. Three kinds of name are read from their text (code blocks
included: a command shown is a name too):

* a dotted name under one of the project's packages (``eval.sql.grading.grade``,
  ``services.redaction.environment_secrets``): the longest prefix that is a module must import and the rest
  must be its attributes (a file's name, ``benchmarks.md``, is a path, not a module);
* a path from the repository's root or from ``autobot-backend/`` (``eval/sql/grading/grade.py``,
  ``docs/eval/ci.md``, ``autobot-backend/tests/...``): it must exist; ``*`` is a glob that must match, and a
  folder written with a trailing ``/`` whose parent exists may be one a run makes (``eval/recorded/``);
* a path of source (``.py``, ``.j2``, ``.js``) written from inside a package (``render/_terminal.py``): it
  must end some file of the repository.

A bare file name (``evaluation.py``, Spider's) is not checked: it may be another project's.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from functools import cache
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[3]
REPO_ROOT = BACKEND.parent
PAGES = [*sorted((REPO_ROOT / "docs" / "eval").glob("*.md")), REPO_ROOT / "README.md"]
PACKAGES = ("eval", "services", "tests", "benchmarks")
ROOTS = (*PACKAGES, "docs", ".ci")
SOURCE = (".py", ".j2", ".js")
FILE_SUFFIXES = {"md", "json", "jsonl", "yaml", "yml", "png", "html", "txt", "csv", "sql", "toml", "py"}
SKIPPED_DIRS = {".git", ".venv", "__pycache__", ".eval-cache", ".test-artifacts", ".pytest_cache", ".mypy_cache"}

_NOT_BEFORE = r"(?<![\w./*<>-])"
DOTTED = re.compile(_NOT_BEFORE + rf"((?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+)")
PATH = re.compile(_NOT_BEFORE + r"((?:\.\./)*(?:[\w.*-]+/)+[\w.*-]*)")


def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or attributes of the longest module it starts with."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            obj: object = importlib.import_module(module)
            for attribute in parts[i:]:
                if not hasattr(obj, attribute):
                    return False
                obj = getattr(obj, attribute)
            return True
    return False


@cache
def repository_files() -> tuple[str, ...]:
    """Every file of the checkout, as a ``/``-joined path from the root (caches and the venv left out)."""
    out = []
    for folder, dirs, files in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        rel = Path(folder).relative_to(REPO_ROOT).as_posix()
        out += [f if rel == "." else f"{rel}/{f}" for f in files]
    return tuple(out)


def path_exists(token: str) -> bool:
    """Whether a path a page names is there (see the module's docstring for the rules)."""
    token = token.rstrip(".")
    bare = re.sub(r"^(?:\.\./)+", "", token)
    first = bare.removeprefix("autobot-backend/").split("/", 1)[0]
    if first in ROOTS:
        bases = (BACKEND, REPO_ROOT) if not bare.startswith("autobot-backend/") else (REPO_ROOT,)
        for base in bases:
            if "*" in bare:
                if any(base.glob(bare)):
                    return True
            elif (base / bare).exists() or (bare.endswith("/") and (base / bare).parent.is_dir()):
                return True
        return False
    if bare.endswith(SOURCE) and "*" not in bare:
        return any(f == bare or f.endswith("/" + bare) for f in repository_files())
    return True  # not a path of this repository (an example's, a benchmark's, a fraction)


def names_on(page: Path) -> list[tuple[int, str, str]]:
    """(line, kind, name) of every module name and repository path the page writes."""
    found = []
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        found += [
            (n, "module", m.group(1))
            for m in DOTTED.finditer(line)
            if m.group(1).rsplit(".", 1)[1] not in FILE_SUFFIXES
        ]
        found += [(n, "path", m.group(1)) for m in PATH.finditer(line) if "://" not in line[: m.start()][-12:]]
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_and_file_a_page_names_exists(page: Path):
    missing = [
        f"{page.relative_to(REPO_ROOT)}:{n}: {kind} `{name}` "
        + ("does not import" if kind == "module" else "does not exist")
        for n, kind, name in names_on(page)
        if not (resolves(name) if kind == "module" else path_exists(name))
    ]
    assert not missing, "names in the docs that point at nothing; correct each:\n" + "\n".join(missing)


def test_the_check_finds_a_name_that_is_not_there(tmp_path: Path):
    """The control: names the issue found, and their kin, are caught; the real ones pass."""
    assert not resolves("eval.sql.identity.cohort") and not resolves("services.sql_transpile")
    assert not resolves("eval.sql.grading.grade.no_such_function")
    assert resolves("eval.sql.grading.identity.cohort") and resolves("eval.sql.grading.grade")
    assert not path_exists("eval/sql/grading/no_such_module.py") and path_exists("eval/sql/grading/grade.py")
    assert not path_exists("render/_no_such_renderer.py") and path_exists("render/_terminal.py")
    assert not path_exists("tests/data/no_such_set*/") and path_exists("tests/data/embedded_blind*/baselines/")
    assert path_exists("eval/recorded/") and not path_exists("eval/no/such/folder/")
    page = tmp_path / "page.md"
    page.write_text(
        "See `eval.sql.compare.compare_results` and `eval/sql/compare.py`; not `evaluation.py` nor benchmarks.md.\n"
    )
    assert [(k, name) for _, k, name in names_on(page)] == [
        ("module", "eval.sql.compare.compare_results"),
        ("path", "eval/sql/compare.py"),
    ]
